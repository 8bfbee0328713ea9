// fedmf-coordinator: runs federated training of one run (--run=FILE, a fedmf.v1.RunSpec, or the
// one-shot flags: --algorithm, DPMF-RP by default, --help lists the algorithms, --rounds, ...)
// over gRPC with fedmf-client processes (secure aggregation, per-stage deadlines, privacy ledger,
// checkpoint/resume), or, as `fedmf-coordinator status --target=HOST:PORT`, prints a running
// coordinator's Admin.Status, or, as `fedmf-coordinator submit FILE`, `runs` and `cancel ID`
// (--target=HOST:PORT), submits a run (a RunSpec in text format) to it, lists its runs or cancels
// one, or, as `fedmf-coordinator health --target=HOST:PORT`, asks its gRPC health service (the
// probes), or, as `fedmf-coordinator issue-token --ids=...
// --credentials_file=PATH`, makes a client's token, or, as `fedmf-coordinator describe-run`,
// prints the RunSpec its flags make.
// One port serves Federation, Admin and gRPC health, plaintext or TLS (optionally mutual TLS,
// with client identities checked against a revocation file): docs/deployment.md.
// Scale-out (docs/scale-out.md): --role=combiner runs the rounds and serves the Replica service
// (and Admin) instead of devices; --role=front serves devices (Federation, health) and relays for
// the combiner at --combiner.
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/container/flat_hash_set.h"
#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/util/atomic_file.h"
#include "common/util/cli.h"
#include "common/util/event_log.h"
#include "common/util/fd_limit.h"
#include "common/util/proc_stats.h"
#include "rpc/channel.h"
#include "rpc/health_check.h"
#include "server/coordinator.h"
#include "server/coordinator_executor.h"
#include "server/coordinator_setup.h"
#include "server/credentials.h"
#include "server/front.h"
#include "server/front_link.h"
#include "server/metrics_server.h"
#include "server/peer_policy.h"
#include "server/replica_service.h"
#include "server/replica_trace.h"
#include "server/run_queue.h"
#include "server/run_service.h"
#include "server/run_spec.h"
#include "server/server_tls.h"
#include "server/services.h"
#include "server/shared_run_queue.h"
#include "server/stream_limits.h"
#include "server/traffic_report.h"
#include "wire/chunking.h"
#include "wire/limits.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50051", "address:port to serve on");
ABSL_FLAG(std::string, target, "127.0.0.1:50051",
          "status, health, submit, runs, cancel: the coordinator to ask");
ABSL_FLAG(std::string, enrollment_token, fedmf::rpc::kDemoEnrollmentToken,
          "shared token clients must present (set your own off loopback)");
ABSL_FLAG(std::string, tls_cert, "",
          "PEM certificate chain of the coordinator: TLS on (empty: plaintext, for loopback "
          "demos). status, health, submit, runs, cancel: this client's certificate when the "
          "coordinator requires one");
ABSL_FLAG(std::string, tls_key, "", "PEM private key of --tls_cert");
ABSL_FLAG(std::string, tls_client_ca, "",
          "PEM CA bundle: mutual TLS, every client needs a certificate it signed; the "
          "certificate's CN is the client's identity");
ABSL_FLAG(std::string, revoked_identities, "",
          "file of revoked client identities (certificate CNs), one a line, '#' comments; "
          "re-read when it changes; needs --tls_client_ca");
ABSL_FLAG(std::string, credentials_file, "",
          "binds participant ids to client credentials (token-sha256:<hex> or identity:<CN>, "
          "then ids such as 1-40,45; one a line; re-read when it changes): a client may then "
          "register only its own ids; issue-token adds a token");
ABSL_FLAG(std::string, ids, "", "issue-token: the participant ids of the new token, e.g. 1-40,45");
ABSL_FLAG(int64_t, max_streams_per_identity, 1,
          "live streams one client TLS identity, and one --credentials_file token, may hold each "
          "(a --one_stream_per_user client opens one per user); 0: no limit");
ABSL_FLAG(std::string, admin_identities, "admin",
          "mutual TLS: comma-separated client identities (certificate CNs) allowed to call the "
          "Admin service (`status`, `submit`, `runs`, `cancel`); others are refused");
ABSL_FLAG(std::string, admin_token_file, "",
          "file holding the admin token (one line; make it long and random): the Admin service "
          "(`status`, `submit`, `runs`, `cancel`) then answers only callers presenting it, also "
          "under mutual TLS. status, submit, runs, cancel: the token to present. Required by "
          "--service off loopback without mutual TLS");
ABSL_FLAG(int64_t, max_pending_registrations, 100000,
          "registrations that may wait for their Participate stream, in all; more are refused "
          "(RESOURCE_EXHAUSTED) until some bind or expire");
ABSL_FLAG(int64_t, max_pending_per_identity, 64,
          "registrations one client (its --credentials_file credential, else its mutual-TLS "
          "identity) may have waiting for their stream");
ABSL_FLAG(int64_t, registration_ttl_s, 60,
          "seconds a registration's session token stays valid before its stream presents it");
ABSL_FLAG(
    std::string, tls_ca, "",
    "status, health, submit, runs, cancel: PEM CA bundle of the coordinator's certificate (TLS "
    "on; empty: plaintext)");
ABSL_FLAG(std::string, tls_server_name, "",
          "status, health, submit, runs, cancel: name to verify in the coordinator's certificate "
          "(default: the host of --target)");
ABSL_FLAG(std::string, eval_data, "",
          "SIMULATION ONLY: the clients' dataset, to score the model each round (a real "
          "coordinator has no ratings); also gives the data shape");
ABSL_FLAG(int64_t, chunk_bytes, static_cast<int64_t>(fedmf::wire::kDefaultChunkBytes),
          "no message to a client serializes to more than this many bytes: larger ones travel "
          "as chunks (default: gRPC's default receive limit)");
ABSL_FLAG(double, max_registrations_per_s, fedmf::server::StreamLimits().registrations_per_second,
          "Register calls per second per peer address (token bucket refill; 0: no limit); more are "
          "refused with RESOURCE_EXHAUSTED");
ABSL_FLAG(double, max_registration_burst, fedmf::server::StreamLimits().registration_burst,
          "token bucket size: Register calls one address may make at once (a load generator "
          "registers every simulated user)");
ABSL_FLAG(int64_t, max_streams, fedmf::server::StreamLimits().max_streams,
          "concurrent Participate streams; more are refused with RESOURCE_EXHAUSTED");
ABSL_FLAG(double, max_stream_messages_per_s, fedmf::server::StreamLimits().messages_per_second,
          "messages per second per stream (token bucket refill; 0: no limit); a stream over it "
          "is ended with RESOURCE_EXHAUSTED");
ABSL_FLAG(double, max_stream_burst, fedmf::server::StreamLimits().message_burst,
          "token bucket size: messages a stream may send at once (a process hosting many users "
          "sends one per user and stage)");
ABSL_FLAG(int64_t, max_stream_queue_mib,
          static_cast<int64_t>(fedmf::server::StreamLimits().max_queued_bytes >> 20),
          "MiB queued for one client beyond the message being written; a client that does not "
          "read past it leaves the round and its stream is ended");
ABSL_FLAG(int64_t, max_message_mib, static_cast<int64_t>(fedmf::wire::kDefaultChunkBytes >> 20),
          "largest message a client may send, in MiB (1 to 64; gRPC refuses larger ones with "
          "RESOURCE_EXHAUSTED): at least the clients' --chunk_bytes, whose default it is");
ABSL_FLAG(int64_t, max_upload_buffer_mib,
          static_cast<int64_t>(fedmf::server::CoordinatorOptions().max_upload_buffer_bytes >> 20),
          "MiB all streams' incomplete chunked uploads may hold together (each the bytes it "
          "received, at most this divided by the streams hosting the cohort); a stream whose "
          "upload does not fit is ended with RESOURCE_EXHAUSTED");
ABSL_FLAG(double, upload_timeout_s,
          absl::ToDoubleSeconds(fedmf::server::CoordinatorOptions().upload_timeout),
          "a chunked upload not complete this long after its first chunk ends its stream "
          "(DEADLINE_EXCEEDED)");
ABSL_FLAG(double, check_in_period_s, 0,
          "check-in (docs/runtime.md): while a round runs, end the streams it does not need (of "
          "clients that accept check-in, open for --check_in_window_s) and tell each to come back "
          "after a random delay of 0.5 to 1.5 times this, so idle devices hold no connection; "
          "0: off (every stream stays)");
ABSL_FLAG(double, check_in_window_s,
          absl::ToDoubleSeconds(fedmf::server::CoordinatorOptions().check_in_window),
          "with --check_in_period_s: how long a stream stays open before check-in may end it (a "
          "device that came back is available to the next round's cohort for this long)");
ABSL_FLAG(bool, service, false,
          "run as a long-running service: start with no run, train the runs submitted to it "
          "(`fedmf-coordinator submit FILE`) one at a time, each in STATE_DIR/runs/<id>/, and "
          "serve the published models between them, until SIGTERM; a restart resumes the queue "
          "and the run in progress (docs/runtime.md, \"Submitted runs\"). Takes no run flags");
ABSL_FLAG(bool, serve, false,
          "after training, keep serving the published models (Register, Models.Download) until "
          "SIGTERM, instead of exiting: devices that were offline when training ended get the "
          "final model (docs/runtime.md, \"Published models\")");
ABSL_FLAG(std::string, role, "single",
          "single: one process serves devices and runs the rounds. Scale-out "
          "(docs/scale-out.md): combiner: runs the rounds, and devices reach it through fronts "
          "that attach to its port (the Replica service); front: serves devices on --listen and "
          "relays for the combiner at --combiner (no run flags, no state)");
ABSL_FLAG(std::string, combiner, "", "--role=front: host:port of the combiner");
ABSL_FLAG(std::string, front_name, "",
          "--role=front: this front's name in the combiner's logs (default: host name and pid)");
ABSL_FLAG(std::string, front_identities, "",
          "--role=combiner under mutual TLS: comma-separated certificate CNs that may attach as "
          "fronts (required then)");
ABSL_FLAG(std::string, insecure_replica_trace, "",
          "--role=combiner, tests and audits only: append every message of every replica link, "
          "both ways, to this file (length-delimited fedmf.v1.ReplicaTraceRecord): all the keys, "
          "shares and partial sums the combiner sees (tests/integration/replica_trace_check)");
ABSL_FLAG(std::string, replica_tls_ca, "",
          "--role=front: PEM CA of the combiner's certificate (empty: a plaintext link, which the "
          "combiner accepts on loopback only)");
ABSL_FLAG(std::string, replica_tls_cert, "",
          "--role=front: this front's certificate for the link's mutual TLS (its CN must be in "
          "the combiner's --front_identities)");
ABSL_FLAG(std::string, replica_tls_key, "", "--role=front: private key of --replica_tls_cert");
ABSL_FLAG(std::string, replica_tls_server_name, "",
          "--role=front: name to verify in the combiner's certificate (default: its host)");
ABSL_FLAG(double, replica_keepalive_s, 10,
          "--role=front and combiner: keepalive ping period on the replica links, >= 1; a peer "
          "that does not answer a ping within another such period is lost (a front: its combiner; "
          "the combiner: a partitioned or frozen front, whose users leave the rounds)");
ABSL_FLAG(int64_t, replica_queue_mib, 256,
          "--role=front or combiner: bound of a replica link's send queue; a side that does not "
          "read past it loses the link");
ABSL_FLAG(std::string, metrics_listen, "",
          "host:port to serve Prometheus metrics on over HTTP (GET /metrics; port 0: any free "
          "one, logged as event=metrics_listening); empty: none. Unauthenticated: bind it where "
          "only the scraper reaches");
// The run (--run=FILE, or the one-shot flags --algorithm, --rounds, --seed, --wait_for_users, ...:
// server/run_spec.cc) and the process settings --state_dir, --split, ...
// (server/coordinator_setup.cc) are shared with fedmf-sim; each algorithm's options (--config,
// --set) are its fedmf.v1.<Name>Options (common/algorithms/options.h). --chunk_bytes is not among
// them: fedmf-sim's in-process transport keeps the default chunk size.

ABSL_DECLARE_FLAG(std::string, state_dir);  // coordinator_setup.cc

namespace fedmf::server {
namespace {

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop.store(true); }

// The channel of the `status`, `health`, `submit`, `runs` and `cancel` subcommands: --target,
// --tls_ca/cert/key/server_name.
absl::StatusOr<std::shared_ptr<grpc::Channel>> CommandChannel() {
  return rpc::MakeChannel({.target = absl::GetFlag(FLAGS_target),
                           .tls = {.ca_file = absl::GetFlag(FLAGS_tls_ca),
                                   .cert_file = absl::GetFlag(FLAGS_tls_cert),
                                   .key_file = absl::GetFlag(FLAGS_tls_key),
                                   .server_name = absl::GetFlag(FLAGS_tls_server_name)}});
}

// `health`: grpc.health.v1.Health/Check of the whole server; OK only when it answers SERVING.
absl::Status PrintHealth() {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = CommandChannel();
  if (!channel.ok()) return channel.status();
  const std::string target = absl::GetFlag(FLAGS_target);
  absl::StatusOr<std::string> serving = rpc::CheckHealth(*channel, "", absl::Seconds(5));
  if (!serving.ok()) {
    return absl::UnavailableError(absl::StrCat(
        target, ": no health answer: ", absl::StatusCodeToString(serving.status().code()), ": ",
        serving.status().message()));
  }
  if (*serving != "SERVING") {
    return absl::UnavailableError(absl::StrCat(target, ": health status ", *serving));
  }
  std::printf("%s: health status %s\n", target.c_str(), serving->c_str());
  return absl::OkStatus();
}

// The token in --admin_token_file (surrounding whitespace dropped); empty without the flag;
// InvalidArgument naming the file when it cannot be read or holds none.
absl::StatusOr<std::string> AdminToken() {
  const std::string file = absl::GetFlag(FLAGS_admin_token_file);
  if (file.empty()) return std::string();
  absl::StatusOr<std::string> text = ReadFile(file);
  if (!text.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--admin_token_file=", file, ": ", text.status().message()));
  }
  const std::string token(absl::StripAsciiWhitespace(*text));
  if (token.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--admin_token_file=", file, ": the file is empty"));
  }
  return token;
}

// One call of the Admin service at --target, with a 5 s deadline and the --admin_token_file
// token: `call(stub, context)`'s status as the coordinator's own code (e.g. PERMISSION_DENIED for
// a non-admin identity), after the target.
template <typename Call>
absl::Status CallAdmin(Call call) {
  absl::StatusOr<std::string> token = AdminToken();
  if (!token.ok()) return token.status();
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = CommandChannel();
  if (!channel.ok()) return channel.status();
  auto stub = v1::Admin::NewStub(*channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  if (!token->empty()) {
    context.AddMetadata(wire::kAdminTokenMetadataKey, wire::kAdminTokenPrefix + *token);
  }
  const grpc::Status s = call(*stub, context);
  if (!s.ok()) {
    return absl::Status(static_cast<absl::StatusCode>(s.error_code()),
                        absl::StrCat(absl::GetFlag(FLAGS_target), ": ", s.error_message()));
  }
  return absl::OkStatus();
}

absl::Status PrintStatus() {
  v1::StatusResponse r;
  if (absl::Status s = CallAdmin([&r](v1::Admin::Stub& stub, grpc::ClientContext& context) {
        return stub.Status(&context, v1::StatusRequest(), &r);
      });
      !s.ok()) {
    return s;
  }
  std::printf(
      "run_id=%s round=%lld total_rounds=%lld phase=%d stage=%s registered_users=%d "
      "connected_clients=%d "
      "participants=%d dropouts=%d population=%d bytes_in=%lld bytes_out=%lld epsilon_rdp2=%g "
      "epsilon_dp=%g delta=%g privacy_unit=%s privacy_bound=%s %s\n",
      r.run_id().empty() ? "-" : r.run_id().c_str(), static_cast<long long>(r.round()),
      static_cast<long long>(r.total_rounds()), r.phase(), r.stage().c_str(), r.registered_users(),
      r.connected_clients(), r.participants(), r.dropouts(), r.population(),
      static_cast<long long>(r.bytes_in()), static_cast<long long>(r.bytes_out()), r.epsilon_rdp2(),
      r.epsilon_dp(), r.delta(), r.privacy_unit().empty() ? "none" : r.privacy_unit().c_str(),
      r.privacy_bound().empty() ? "none" : r.privacy_bound().c_str(), FormatTraffic(r).c_str());
  if (r.has_runs()) {
    std::printf("runs queued=%d running=%d done=%d failed=%d cancelled=%d running_id=%lld\n",
                r.runs().queued(), r.runs().running(), r.runs().done(), r.runs().failed(),
                r.runs().cancelled(), static_cast<long long>(r.runs().running_id()));
  }
  if (r.failed_rounds_in_a_row() > 0) {
    std::printf("failing failed_rounds_in_a_row=%d last_failure=\"%s\"\n",
                r.failed_rounds_in_a_row(), r.last_failure().c_str());
  }
  for (const v1::ExcludedParticipant& e : r.excluded()) {
    std::printf("excluded participant=%u reason=\"%s\"\n", e.participant_id(), e.reason().c_str());
  }
  for (const v1::FrontStatus& f : r.fronts()) {
    std::printf(
        "front index=%lld name=\"%s\" streams=%d users=%d device_bytes_in=%lld "
        "device_bytes_out=%lld "
        "checked_in_streams=%lld link_bytes_in=%lld link_bytes_out=%lld\n",
        static_cast<long long>(f.index()), f.name().c_str(), f.streams(), f.users(),
        static_cast<long long>(f.device_bytes_in()), static_cast<long long>(f.device_bytes_out()),
        static_cast<long long>(f.checked_in_streams()), static_cast<long long>(f.link_bytes_in()),
        static_cast<long long>(f.link_bytes_out()));
  }
  if (r.has_federated_evaluation()) {
    const v1::FederatedEvaluation& e = r.federated_evaluation();
    const std::string errors =
        e.rating_errors_absent()
            ? "rating_errors=absent"
            : absl::StrFormat(
                  "test_ratings=%lld test_rmse=%.10g test_mae=%.10g per_user_rmse=%.10g",
                  static_cast<long long>(e.num_ratings()), e.rmse(), e.mae(), e.per_user_rmse());
    std::printf(
        "federated_eval round=%lld contributors=%d users_with_test=%d %s ranking_users=%d "
        "precision=%.10g recall=%.10g f1=%.10g map=%.10g ndcg=%.10g clamped_users=%d\n",
        static_cast<long long>(e.round()), e.contributors(), e.error_users(), errors.c_str(),
        e.ranking_users(), e.precision(), e.recall(), e.f1(), e.map(), e.ndcg(), e.clamped_users());
  }
  return absl::OkStatus();
}

// `submit FILE`: the run in FILE (a RunSpec in text format) to Admin.SubmitRun; prints its record.
absl::Status SubmitRun(absl::string_view file) {
  absl::StatusOr<v1::RunSpec> spec = ReadRunSpec(file);
  if (!spec.ok()) return spec.status();
  v1::RunRecord record;
  if (absl::Status s = CallAdmin([&](v1::Admin::Stub& stub, grpc::ClientContext& context) {
        return stub.SubmitRun(&context, *spec, &record);
      });
      !s.ok()) {
    return s;
  }
  std::printf("%s\n", RunRecordLine(record).c_str());
  return absl::OkStatus();
}

// `runs`: Admin.ListRuns, one line a run.
absl::Status PrintRuns() {
  v1::ListRunsResponse runs;
  if (absl::Status s = CallAdmin([&](v1::Admin::Stub& stub, grpc::ClientContext& context) {
        return stub.ListRuns(&context, v1::ListRunsRequest(), &runs);
      });
      !s.ok()) {
    return s;
  }
  for (const v1::RunRecord& record : runs.runs()) {
    std::printf("%s\n", RunRecordLine(record).c_str());
  }
  return absl::OkStatus();
}

// `cancel ID`: Admin.CancelRun; prints the run's record.
absl::Status CancelRun(absl::string_view id_text) {
  v1::CancelRunRequest request;
  int64_t id = 0;
  if (!absl::SimpleAtoi(id_text, &id) || id < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("cancel ID: '", id_text, "' is not a run id (1, 2, ...: `runs` lists them)"));
  }
  request.set_id(id);
  v1::RunRecord record;
  if (absl::Status s = CallAdmin([&](v1::Admin::Stub& stub, grpc::ClientContext& context) {
        return stub.CancelRun(&context, request, &record);
      });
      !s.ok()) {
    return s;
  }
  std::printf("%s\n", RunRecordLine(record).c_str());
  return absl::OkStatus();
}

// --service takes its runs from `submit`: InvalidArgument naming the run flags, --run or --serve
// given with it.
absl::Status CheckServiceFlags() {
  if (absl::GetFlag(FLAGS_serve)) {
    return absl::InvalidArgumentError("--service always serves: drop --serve");
  }
  return CheckNoRun("--service takes its runs from `fedmf-coordinator submit FILE`");
}

// What serving devices takes, from the flags, for a single coordinator or a front: the port's
// TLS and credentials, who may connect (the peer policy), the stream limits; the process fields
// of `options` (enrollment, credentials, pending registrations, chunks, uploads, check-in) are set
// from the flags too. InvalidArgument naming the flag for a bad value.
struct DeviceFacing {
  ServerTls tls;
  std::shared_ptr<grpc::ServerCredentials> credentials;
  std::unique_ptr<PeerPolicy> policy;  // a pointer: options.revoked refers to it
  StreamLimits limits;
  int64_t message_mib = 0;
  int64_t queue_mib = 0;
  uint64_t open_files = 0;
};

absl::StatusOr<DeviceFacing> DeviceFacingFromFlags(CoordinatorOptions& options) {
  // An empty token is a token everyone holds: refused unless mutual TLS names the clients.
  if (absl::GetFlag(FLAGS_enrollment_token).empty() && absl::GetFlag(FLAGS_tls_client_ca).empty() &&
      absl::GetFlag(FLAGS_credentials_file).empty()) {
    return absl::InvalidArgumentError(
        "--enrollment_token is empty, so any client could register: set a token (or use mutual "
        "TLS, --tls_client_ca, or per-client tokens, --credentials_file)");
  }
  DeviceFacing facing;
  options.enrollment_token = absl::GetFlag(FLAGS_enrollment_token);
  options.max_streams_per_client = absl::GetFlag(FLAGS_max_streams_per_identity);
  if (options.max_streams_per_client < 0) {
    return absl::InvalidArgumentError(absl::StrCat("--max_streams_per_identity must be >= 0, got ",
                                                   options.max_streams_per_client));
  }
  const int64_t max_pending = absl::GetFlag(FLAGS_max_pending_registrations);
  const int64_t max_pending_per_identity = absl::GetFlag(FLAGS_max_pending_per_identity);
  const int64_t ttl_s = absl::GetFlag(FLAGS_registration_ttl_s);
  if (max_pending < 1 || max_pending_per_identity < 1 || ttl_s < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--max_pending_registrations (", max_pending, "), --max_pending_per_identity (",
        max_pending_per_identity, ") and --registration_ttl_s (", ttl_s, ") must be >= 1"));
  }
  options.pending_registrations = {
      .max_pending = static_cast<size_t>(max_pending),
      .max_pending_per_client = static_cast<size_t>(max_pending_per_identity),
      .ttl = absl::Seconds(ttl_s)};
  facing.tls = ServerTls{.cert_file = absl::GetFlag(FLAGS_tls_cert),
                         .key_file = absl::GetFlag(FLAGS_tls_key),
                         .client_ca_file = absl::GetFlag(FLAGS_tls_client_ca)};
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials =
      MakeServerCredentials(facing.tls);
  if (!credentials.ok()) return credentials.status();
  facing.credentials = *std::move(credentials);
  std::unique_ptr<RevocationList> revoked;
  if (const std::string file = absl::GetFlag(FLAGS_revoked_identities); !file.empty()) {
    if (!facing.tls.mutual()) {
      return absl::InvalidArgumentError(
          "--revoked_identities needs --tls_client_ca (identities come from client certificates)");
    }
    absl::StatusOr<std::unique_ptr<RevocationList>> list = RevocationList::Load(file);
    if (!list.ok()) return list.status();
    revoked = *std::move(list);
  }
  facing.policy = std::make_unique<PeerPolicy>(facing.tls.mutual(), std::move(revoked));
  if (facing.policy->revokes()) {
    options.revoked = [policy = facing.policy.get()](absl::string_view identity) {
      return policy->IsRevoked(identity);
    };
  }
  if (const std::string file = absl::GetFlag(FLAGS_credentials_file); !file.empty()) {
    absl::StatusOr<std::unique_ptr<WatchedFile<Credentials>>> loaded =
        WatchedFile<Credentials>::Load(
            file, "credentials file", &Credentials::Parse,
            [](const std::string& path, const Credentials& c) {
              EventLine("credentials").Add("file", path).Add("credentials", c.size());
            },
            absl::Seconds(1));
    if (!loaded.ok()) return loaded.status();
    std::shared_ptr<WatchedFile<Credentials>> credentials_file = *std::move(loaded);
    options.credentials = [credentials_file] { return credentials_file->Get(); };
  }
  const int64_t chunk_bytes = absl::GetFlag(FLAGS_chunk_bytes);
  if (absl::Status s = wire::ValidateChunkBytes(chunk_bytes); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--chunk_bytes: ", s.message()));
  }
  options.chunk_bytes = static_cast<size_t>(chunk_bytes);
  facing.message_mib = absl::GetFlag(FLAGS_max_message_mib);
  if (facing.message_mib < 1 || facing.message_mib > (wire::kMaxMessageBytes >> 20)) {
    return absl::InvalidArgumentError(absl::StrCat("--max_message_mib=", facing.message_mib,
                                                   ": need 1 to ", wire::kMaxMessageBytes >> 20));
  }
  const int64_t upload_buffer_mib = absl::GetFlag(FLAGS_max_upload_buffer_mib);
  const double upload_timeout_s = absl::GetFlag(FLAGS_upload_timeout_s);
  if (upload_buffer_mib < 1 || !(upload_timeout_s > 0)) {
    return absl::InvalidArgumentError(absl::StrCat("--max_upload_buffer_mib (", upload_buffer_mib,
                                                   ") must be >= 1 and ", "--upload_timeout_s (",
                                                   upload_timeout_s, ") > 0"));
  }
  options.max_upload_buffer_bytes = static_cast<uint64_t>(upload_buffer_mib) << 20;
  options.upload_timeout = absl::Seconds(upload_timeout_s);
  const double check_in_period_s = absl::GetFlag(FLAGS_check_in_period_s);
  const double check_in_window_s = absl::GetFlag(FLAGS_check_in_window_s);
  if (!(check_in_period_s >= 0) || !(check_in_window_s >= 0)) {
    return absl::InvalidArgumentError(absl::StrCat("--check_in_period_s (", check_in_period_s,
                                                   ") and --check_in_window_s (", check_in_window_s,
                                                   ") must be >= 0"));
  }
  options.check_in_period = absl::Seconds(check_in_period_s);
  options.check_in_window = absl::Seconds(check_in_window_s);
  // One descriptor per client connection: take all the hard limit allows.
  absl::StatusOr<uint64_t> open_files = RaiseOpenFileLimit();
  if (!open_files.ok()) return open_files.status();
  facing.open_files = *open_files;
  if (facing.open_files < 1024) {
    EventLine("warning")
        .Add("open_file_limit", facing.open_files)
        .Add("effect", "fewer than ~1000 client connections can be held; raise ulimit -Hn");
  }
  StreamLimits& limits = facing.limits;
  limits.max_streams = absl::GetFlag(FLAGS_max_streams);
  limits.messages_per_second = absl::GetFlag(FLAGS_max_stream_messages_per_s);
  limits.message_burst = absl::GetFlag(FLAGS_max_stream_burst);
  facing.queue_mib = absl::GetFlag(FLAGS_max_stream_queue_mib);
  if (limits.max_streams < 1 || limits.messages_per_second < 0 ||
      (limits.messages_per_second > 0 && limits.message_burst < 1) || facing.queue_mib < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--max_streams (", limits.max_streams, ") and --max_stream_queue_mib (", facing.queue_mib,
        ") must be >= 1, --max_stream_messages_per_s (", limits.messages_per_second,
        ") >= 0 and, when it is > 0, --max_stream_burst (", limits.message_burst, ") >= 1"));
  }
  limits.max_queued_bytes = static_cast<uint64_t>(facing.queue_mib) << 20;
  limits.registrations_per_second = absl::GetFlag(FLAGS_max_registrations_per_s);
  limits.registration_burst = absl::GetFlag(FLAGS_max_registration_burst);
  if (limits.registrations_per_second < 0 ||
      (limits.registrations_per_second > 0 && limits.registration_burst < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max_registrations_per_s (", limits.registrations_per_second,
                     ") must be >= 0 and, when it is > 0, --max_registration_burst (",
                     limits.registration_burst, ") >= 1"));
  }
  return facing;
}

// The event=listening line of a port that serves devices.
void LogListening(absl::string_view role, int port, const DeviceFacing& facing,
                  const CoordinatorOptions& options) {
  const ServerTls& tls = facing.tls;
  rpc::WarnIfPlaintextOffLoopback("fedmf-coordinator", absl::GetFlag(FLAGS_listen), tls.enabled());
  rpc::WarnIfDemoTokenOffLoopback(absl::GetFlag(FLAGS_listen),
                                  absl::GetFlag(FLAGS_enrollment_token), tls.mutual());
  EventLine line("listening");
  line.Add("role", role)
      .Add("address", absl::GetFlag(FLAGS_listen))
      .Add("port", port)
      .Add("tls", !tls.enabled() ? "off"
                  : tls.mutual() ? "mutual"
                                 : "server")
      .Add("open_file_limit", facing.open_files)
      .Add("max_streams", facing.limits.max_streams)
      .Add("max_stream_messages_per_s", facing.limits.messages_per_second)
      .Add("max_stream_burst", facing.limits.message_burst)
      .Add("max_stream_queue_mib", facing.queue_mib)
      .Add("max_registrations_per_s", facing.limits.registrations_per_second)
      .Add("max_message_mib", facing.message_mib)
      .Add("max_upload_buffer_mib", options.max_upload_buffer_bytes >> 20);
  // A front's check-in is its combiner's, from the Welcome.
  if (role != "front")
    line.Add("check_in_period_s", absl::ToDoubleSeconds(options.check_in_period));
}

// The replica links' keepalive period (--replica_keepalive_s), both ends.
absl::StatusOr<absl::Duration> ReplicaKeepalive() {
  const double seconds = absl::GetFlag(FLAGS_replica_keepalive_s);
  if (!(seconds >= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--replica_keepalive_s=", seconds, ": need >= 1"));
  }
  return absl::Seconds(seconds);
}

// The bound of a replica link's send queue (--replica_queue_mib).
absl::StatusOr<uint64_t> ReplicaQueueBytes() {
  const int64_t mib = absl::GetFlag(FLAGS_replica_queue_mib);
  if (mib < 1) {
    return absl::InvalidArgumentError(absl::StrCat("--replica_queue_mib=", mib, ": need >= 1"));
  }
  return static_cast<uint64_t>(mib) << 20;
}

// --role=front (docs/scale-out.md): serves devices on --listen (Federation and gRPC health,
// SERVING only while attached) and relays for the combiner at --combiner, until SIGTERM.
absl::Status ServeFront() {
  if (absl::Status s = CheckNoRun("a front takes its run from the combiner (--role=front)");
      !s.ok()) {
    return s;
  }
  for (const auto& [flag, set] : std::vector<std::pair<std::string, bool>>{
           {"--state_dir", !absl::GetFlag(FLAGS_state_dir).empty()},
           {"--service", absl::GetFlag(FLAGS_service)},
           {"--serve", absl::GetFlag(FLAGS_serve)},
           {"--eval_data", !absl::GetFlag(FLAGS_eval_data).empty()},
           {"--front_identities", !absl::GetFlag(FLAGS_front_identities).empty()},
           {"--insecure_replica_trace", !absl::GetFlag(FLAGS_insecure_replica_trace).empty()}}) {
    if (set) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, " is the combiner's: a front has no state and no run"));
    }
  }
  if (absl::GetFlag(FLAGS_check_in_period_s) != 0 ||
      absl::GetFlag(FLAGS_check_in_window_s) !=
          absl::ToDoubleSeconds(CoordinatorOptions().check_in_window)) {
    return absl::InvalidArgumentError(
        "--check_in_period_s and --check_in_window_s are the combiner's: its Welcome gives every "
        "front the same (drop them here)");
  }
  const std::string combiner = absl::GetFlag(FLAGS_combiner);
  if (combiner.empty()) {
    return absl::InvalidArgumentError("--role=front needs --combiner=HOST:PORT");
  }
  absl::StatusOr<absl::Duration> keepalive = ReplicaKeepalive();
  if (!keepalive.ok()) return keepalive.status();
  absl::StatusOr<uint64_t> queue_bytes = ReplicaQueueBytes();
  if (!queue_bytes.ok()) return queue_bytes.status();
  CoordinatorOptions options;
  absl::StatusOr<DeviceFacing> facing = DeviceFacingFromFlags(options);
  if (!facing.ok()) return facing.status();
  // The front's copy of the models the combiner publishes, in memory (--model_retention).
  absl::StatusOr<std::shared_ptr<ModelStore>> models = OpenModelStore("");
  if (!models.ok()) return models.status();
  options.models = *std::move(models);
  const rpc::ClientTls link_tls{.ca_file = absl::GetFlag(FLAGS_replica_tls_ca),
                                .cert_file = absl::GetFlag(FLAGS_replica_tls_cert),
                                .key_file = absl::GetFlag(FLAGS_replica_tls_key),
                                .server_name = absl::GetFlag(FLAGS_replica_tls_server_name)};
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = rpc::MakeChannel(
      {.target = combiner, .tls = link_tls, .own_connection = true, .keepalive = *keepalive});
  if (!channel.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the replica link (--replica_tls_*): ", channel.status().message()));
  }
  rpc::WarnIfPlaintextOffLoopback("fedmf-coordinator --role=front (replica link)", combiner,
                                  link_tls.enabled());
  std::string name = absl::GetFlag(FLAGS_front_name);
  if (name.empty()) {
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    name = absl::StrCat(host, ":", getpid());
  }
  FrontLink link(*std::move(channel), name, *queue_bytes);
  Front front(options, SteadyClock::Get(),
              [&link](v1::FrontMessage message) { link.Send(std::move(message)); });
  FederationService federation(&front, facing->policy.get(), facing->limits);
  ModelsService published(&front, facing->policy.get());
  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(absl::GetFlag(FLAGS_listen), facing->credentials, &port);
  builder.SetMaxReceiveMessageSize(static_cast<int>(facing->message_mib << 20));
  builder.SetMaxSendMessageSize(wire::kMaxMessageBytes);
  builder.RegisterService(&federation);
  builder.RegisterService(&published);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", absl::GetFlag(FLAGS_listen)));
  }
  // NOT_SERVING until the combiner welcomes the front, so that a balancer sends it no device.
  server->GetHealthCheckService()->SetServingStatus(false);
  LogListening("front", port, *facing, options);
  EventLine("front").Add("name", name).Add("combiner", combiner);
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGINT, OnSignal);
  std::thread attach([&link, &front] { link.Run(front); });
  // Every second, as the single coordinator's watcher: revoked identities' streams, stalled
  // uploads, check-in's idle streams; every 100 ms, the health status follows the link.
  bool serving = false;
  for (int tick = 1; !g_stop.load(); ++tick) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (front.attached() != serving) {
      serving = !serving;
      server->GetHealthCheckService()->SetServingStatus(serving);
    }
    if (tick % 10 != 0) continue;
    front.ReportStats();
    front.EndRevokedStreams();
    front.EndStalledUploads(absl::Now());
    front.DismissIdleStreams(absl::Now());
  }
  link.Stop();
  attach.join();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  EventLine("front_stopped").Add("name", name);
  return absl::OkStatus();
}

absl::Status Serve() {
  const std::string role = absl::GetFlag(FLAGS_role);
  if (role != "single" && role != "front" && role != "combiner") {
    return absl::InvalidArgumentError(
        absl::StrCat("--role=", role, ": one of single, front, combiner"));
  }
  if (role == "front") return ServeFront();
  const bool combiner = role == "combiner";
  const bool service = absl::GetFlag(FLAGS_service);
  if (!combiner) {
    for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
             {"--combiner", absl::GetFlag(FLAGS_combiner)},
             {"--front_identities", absl::GetFlag(FLAGS_front_identities)}}) {
      if (!value.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(flag, " needs --role=front or combiner"));
      }
    }
  }
  // One-shot: the run of the flags (or --run). Service: the process's options only; each run's
  // come from its submission (PrepareQueuedRun).
  std::optional<ProcessRun> run;
  CoordinatorOptions options;
  if (service) {
    if (absl::Status s = CheckServiceFlags(); !s.ok()) return s;
    absl::StatusOr<std::shared_ptr<ModelStore>> models =
        OpenModelStore(absl::GetFlag(FLAGS_state_dir));
    if (!models.ok()) return models.status();
    options.models = *std::move(models);
  } else {
    absl::StatusOr<ProcessRun> process_run = RunOfProcess();
    if (!process_run.ok()) return process_run.status();
    run = *std::move(process_run);
    absl::StatusOr<CoordinatorOptions> run_options = CoordinatorOptionsForRun(run->spec);
    if (!run_options.ok()) return run_options.status();
    options = *std::move(run_options);
  }
  absl::StatusOr<DeviceFacing> facing = DeviceFacingFromFlags(options);
  if (!facing.ok()) return facing.status();
  const ServerTls& tls = facing->tls;
  absl::flat_hash_set<std::string> front_identities;
  if (combiner) {
    for (absl::string_view id :
         absl::StrSplit(absl::GetFlag(FLAGS_front_identities), ',', absl::SkipEmpty())) {
      front_identities.insert(std::string(id));
    }
    if (tls.mutual() && front_identities.empty()) {
      return absl::InvalidArgumentError(
          "--role=combiner under mutual TLS needs --front_identities (the fronts' certificate "
          "CNs)");
    }
    if (!tls.mutual() && !rpc::IsLoopbackAddress(absl::GetFlag(FLAGS_listen))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--role=combiner on ", absl::GetFlag(FLAGS_listen),
          " without mutual TLS would let anyone who reaches it attach as a front and see the "
          "rounds' messages: set --tls_client_ca and --front_identities"));
    }
  }
  absl::StatusOr<uint64_t> replica_queue_bytes = ReplicaQueueBytes();
  if (!replica_queue_bytes.ok()) return replica_queue_bytes.status();
  absl::StatusOr<absl::Duration> replica_keepalive = ReplicaKeepalive();
  if (!replica_keepalive.ok()) return replica_keepalive.status();
  std::unique_ptr<ReplicaTrace> trace;
  if (const std::string path = absl::GetFlag(FLAGS_insecure_replica_trace); !path.empty()) {
    if (!combiner)
      return absl::InvalidArgumentError("--insecure_replica_trace needs --role=combiner");
    absl::StatusOr<std::unique_ptr<ReplicaTrace>> opened = ReplicaTrace::Open(path);
    if (!opened.ok()) return opened.status();
    trace = *std::move(opened);
    EventLine("insecure_replica_trace")
        .Add("path", path)
        .Add("effect", "every replica link message is written there: for tests and audits only");
  }
  ServiceData data;
  data.models = options.models;
  if (const std::string spec = absl::GetFlag(FLAGS_eval_data); !spec.empty()) {
    absl::StatusOr<data::TrainTest> split = LoadSplitFromFlags(spec);
    if (!split.ok()) return split.status();
    data.users = split->train.num_users();
    data.items = split->train.num_items();
    data.eval_split = std::make_shared<const data::TrainTest>(std::move(*split));
    data.eval_spec = spec;
  }
  int64_t users = 0;
  int32_t items = 0;
  if (run) {
    users = run->spec.num_users() > 0 ? run->spec.num_users() : data.users;
    items = run->spec.num_items() > 0 ? run->spec.num_items() : data.items;
    if (users <= 0 || items <= 0) {
      return absl::InvalidArgumentError(
          "set --num_users and --num_items (or --eval_data), or num_users and num_items of --run");
    }
    if (data.eval_split != nullptr) EvaluateEveryRound(data.eval_split, data.eval_spec, options);
    options.num_users = users;
  }

  // The service's queue (STATE_DIR/runs/queue.pb; a damaged one is named before anything
  // listens), or the one-shot run's state.
  std::unique_ptr<SharedRunQueue> queue;
  std::optional<CoordinatorState> state;
  if (service) {
    absl::StatusOr<RunQueue> opened = RunQueue::Open(absl::GetFlag(FLAGS_state_dir));
    if (!opened.ok()) return opened.status();
    queue =
        std::make_unique<SharedRunQueue>(*std::move(opened), data.users, data.items, data.models);
  } else {
    absl::StatusOr<CoordinatorState> initial = InitialStateForRun(
        *run, users, items, /*simulation_summed_noise=*/false, options.models.get());
    if (!initial.ok()) return initial.status();
    state = *std::move(initial);
  }
  std::unique_ptr<Coordinator> built;
  if (combiner) {
    built = service ? std::make_unique<Coordinator>(options, Coordinator::CombinerRole{})
                    : std::make_unique<Coordinator>(options, *std::move(state),
                                                    Coordinator::CombinerRole{});
  } else {
    built = service ? std::make_unique<Coordinator>(options)
                    : std::make_unique<Coordinator>(options, *std::move(state));
  }
  Coordinator& coordinator = *built;
  FederationService federation(&coordinator, facing->policy.get(), facing->limits);
  ReplicaService replicas(coordinator, std::move(front_identities), *replica_queue_bytes,
                          trace.get());
  AdminAccess access;
  if (tls.mutual()) {
    for (absl::string_view id :
         absl::StrSplit(absl::GetFlag(FLAGS_admin_identities), ',', absl::SkipEmpty())) {
      access.identities.insert(std::string(id));
    }
    if (access.identities.empty()) {
      return absl::InvalidArgumentError(
          "--admin_identities is empty: under mutual TLS nobody could query the status");
    }
  }
  absl::StatusOr<std::string> token = AdminToken();
  if (!token.ok()) return token.status();
  access.token = *std::move(token);
  // A service's Admin calls change what it trains: off loopback, someone must be named.
  if (service && !tls.mutual() && access.token.empty() &&
      !rpc::IsLoopbackAddress(absl::GetFlag(FLAGS_listen))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--service on ", absl::GetFlag(FLAGS_listen),
        " without mutual TLS or an admin token "
        "would let anyone who reaches it submit and cancel runs: set --admin_token_file (or "
        "--tls_client_ca with --admin_identities)"));
  }
  AdminService admin(&coordinator, std::move(access), queue.get());
  ModelsService models(&coordinator, facing->policy.get());
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(absl::GetFlag(FLAGS_listen), facing->credentials, &port);
  builder.SetMaxSendMessageSize(wire::kMaxMessageBytes);
  builder.RegisterService(&admin);
  if (combiner) {
    // The fronts', not devices': a link carries what many devices sent, and pings to keep it.
    builder.SetMaxReceiveMessageSize(wire::kMaxMessageBytes);
    builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 1000);
    builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
    // A front that stops answering without closing its connection (a partition, a frozen
    // process) is lost once a ping goes unanswered, not after TCP's retransmissions (minutes).
    const int keepalive_ms = static_cast<int>(absl::ToInt64Milliseconds(*replica_keepalive));
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, keepalive_ms);
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, keepalive_ms);
    builder.RegisterService(&replicas);
  } else {
    builder.SetMaxReceiveMessageSize(static_cast<int>(facing->message_mib << 20));
    builder.RegisterService(&federation);
    builder.RegisterService(&models);
  }
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", absl::GetFlag(FLAGS_listen)));
  }
  LogListening(role, port, *facing, options);
  std::unique_ptr<MetricsServer> metrics;
  if (const std::string address = absl::GetFlag(FLAGS_metrics_listen); !address.empty()) {
    absl::StatusOr<std::unique_ptr<MetricsServer>> started =
        MetricsServer::Start(address, [&coordinator, &queue] {
          // Status() first: the metrics' own lock is never held while the coordinator's is taken.
          v1::StatusResponse status = coordinator.Status();
          AddRunCounts(queue.get(), status);
          return coordinator.metrics().Render(status, util::ReadProcStats(getpid()));
        });
    if (!started.ok()) return started.status();
    metrics = *std::move(started);
    EventLine("metrics_listening").Add("address", address).Add("port", metrics->port());
  }
  std::optional<CoordinatorExecutor> executor;
  std::optional<RunService> runs;
  if (service) {
    executor.emplace(coordinator, [&data](const v1::RunRecord& run, const std::string& dir) {
      return PrepareQueuedRun(run, dir, data);
    });
    runs.emplace(*queue, *executor);
  }
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGINT, OnSignal);
  // Stops the coordinator on a signal (the process first: the run in progress is left for the
  // restart, not cancelled); every second, ends the streams of revoked identities (within a
  // second of the file's change, for the streams that send nothing: the others end at their next
  // message), those whose chunked upload stalled and, with check-in, those a round does not need,
  // and stops a run whose cancel was asked for.
  std::thread watcher([&coordinator, &runs] {
    for (int tick = 1; !g_stop.load(); ++tick) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (tick % 10 != 0) continue;
      coordinator.EndRevokedStreams();
      coordinator.EndStalledUploads(absl::Now());
      coordinator.DismissIdleStreams(absl::Now());
      if (runs) runs->Poll();
    }
    coordinator.Stop();
    if (runs) runs->Shutdown();
  });
  if (service) {
    EventLine("service")
        .Add("state_dir",
             absl::GetFlag(FLAGS_state_dir).empty() ? "-" : absl::GetFlag(FLAGS_state_dir))
        .Add("runs", queue->List().runs_size())
        .Add("effect", "training the submitted runs one at a time until stopped");
  }
  const absl::Status status = service ? runs->Serve() : coordinator.Run();
  if (!service && status.ok() && !absl::GetFlag(FLAGS_serve)) {
    // Devices told to check in later hear that training is over when they register again: a
    // one-shot coordinator stays until the last of them is due back (and a little longer, for
    // its registration to arrive).
    const absl::Time until = coordinator.CheckInsDueBy() + absl::Seconds(2);
    if (until > absl::Now()) {
      EventLine("check_in_drain")
          .Add("wait_s", absl::ToDoubleSeconds(until - absl::Now()))
          .Add("effect", "telling devices that check in again that training is over");
    }
    while (absl::Now() < until && !g_stop.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  coordinator.WaitForDisconnects(absl::Seconds(5));  // let clients read the final result
  if (!service && status.ok() && absl::GetFlag(FLAGS_serve) && !g_stop.load()) {
    const v1::PublishedModels published = coordinator.Status().models();
    EventLine("serving_models")
        .Add("versions", published.versions())
        .Add("latest_version", published.latest().version())
        .Add("latest_bytes", published.latest().size_bytes())
        .Add("effect", "training is over; serving the published models until stopped");
    while (!g_stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  g_stop.store(true);
  watcher.join();
  return status;
}

absl::Status PrintNewToken() {
  const std::string file = absl::GetFlag(FLAGS_credentials_file);
  const std::string ids = absl::GetFlag(FLAGS_ids);
  if (file.empty() || ids.empty()) {
    return absl::InvalidArgumentError("issue-token needs --credentials_file and --ids");
  }
  absl::StatusOr<std::string> token = IssueToken(file, ids);
  if (!token.ok()) return token.status();
  std::printf("%s\n", token->c_str());
  return absl::OkStatus();
}

}  // namespace
}  // namespace fedmf::server

int main(int argc, char** argv) {
  std::vector<char*> args = fedmf::InitCommandLine(
      argc, argv,
      fedmf::server::UsageWithAlgorithms(
          "fedmf-coordinator [--listen=ADDR:PORT --algorithm=NAME --state_dir=DIR ...|"
          "--run=FILE]: federated training\n"
          "fedmf-coordinator status --target=HOST:PORT: status of a running coordinator\n"
          "fedmf-coordinator health --target=HOST:PORT: exit 0 when its gRPC health check "
          "answers SERVING\n"
          "fedmf-coordinator submit FILE --target=HOST:PORT: submit the run in FILE (a "
          "fedmf.v1.RunSpec in text format) to a running coordinator\n"
          "fedmf-coordinator runs --target=HOST:PORT: its runs, one a line\n"
          "fedmf-coordinator cancel ID --target=HOST:PORT: cancel its run ID\n"
          "fedmf-coordinator issue-token --ids=1-40 --credentials_file=PATH: a new enrollment "
          "token for those ids (printed; its hash is appended to the file)\n"
          "fedmf-coordinator describe NAME: the options of algorithm NAME (--config, --set)\n"
          "fedmf-coordinator describe-run [FLAGS]: the run the flags make, a fedmf.v1.RunSpec in "
          "text format (for --run=FILE)"),
      fedmf::server::RepeatedRunFlags());
  absl::Status status;
  if (args.size() == 1 && std::string(args[0]) == "status") {
    status = fedmf::server::PrintStatus();
  } else if (!args.empty() && std::string(args[0]) == "submit") {
    status = args.size() == 2 ? fedmf::server::SubmitRun(args[1])
                              : absl::InvalidArgumentError("submit takes one run file");
  } else if (args.size() == 1 && std::string(args[0]) == "runs") {
    status = fedmf::server::PrintRuns();
  } else if (!args.empty() && std::string(args[0]) == "cancel") {
    status = args.size() == 2 ? fedmf::server::CancelRun(args[1])
                              : absl::InvalidArgumentError("cancel takes one run id");
  } else if (args.size() == 1 && std::string(args[0]) == "health") {
    status = fedmf::server::PrintHealth();
  } else if (args.size() == 1 && std::string(args[0]) == "issue-token") {
    status = fedmf::server::PrintNewToken();
  } else if (!args.empty() && std::string(args[0]) == "describe") {
    status = fedmf::server::PrintAlgorithmOptions(args);
  } else if (!args.empty() && std::string(args[0]) == "describe-run") {
    status = fedmf::server::PrintRunSpec(args);
  } else if (args.empty()) {
    status = fedmf::server::Serve();
  } else {
    status = absl::InvalidArgumentError(absl::StrCat("unknown command '", args[0], "'"));
  }
  return fedmf::ExitCode(status);
}
