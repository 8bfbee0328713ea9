// fedmf-client: one client process hosting one or many users (each an independent participant
// with its own keys, noise and data) of a dataset, or one silo party (--party), training with a
// fedmf-coordinator over gRPC.
#include <algorithm>
#include <csignal>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "client/grpc_client.h"
#include "client/local_state_file.h"
#include "client/participant_host.h"
#include "client/party_spec.h"
#include "client/stream_pool.h"
#include "common/data/dataset_source.h"
#include "common/data/split_spec.h"
#include "common/dp/dp_conversion.h"
#include "common/util/cli.h"
#include "common/util/event_log.h"
#include "common/util/fd_limit.h"
#include "rpc/channel.h"
#include "wire/chunking.h"

ABSL_FLAG(std::string, coordinator, "127.0.0.1:50051", "host:port of the fedmf-coordinator");
ABSL_FLAG(std::string, data, "synthetic",
          "dataset the users come from (same syntax as every binary's --data)");
ABSL_FLAG(std::string, split, "holdout:0.2",
          "train/test split; users train on the train part and score federated evaluation rounds "
          "on the test part (the coordinator's --split must match for simulation evaluation); "
          "empty = the whole dataset, no test ratings");
ABSL_FLAG(uint64_t, split_seed, 1, "seed of the split");
ABSL_FLAG(std::string, shard, "0/1", "host the users whose dense index % N == i (i/N)");
ABSL_FLAG(std::string, users, "", "comma-separated dense user indices (overrides --shard)");
ABSL_FLAG(std::string, party, "",
          "host one silo party instead of users (cross-silo FL): KIND:I/N, party I (0-based) of "
          "N, participant id I + 1, split from the train/test split; KIND hfl (a block of users, "
          "every item), vfl (every user, a block of items) or vfl-genre (every user, the MovieLens "
          "100K movies of the party's genres, see --item_genres); excludes --shard, --users and "
          "--one_stream_per_user");
ABSL_FLAG(std::string, item_genres, "",
          "--party=vfl-genre: the MovieLens 100K u.item with each movie's genre flags (default: "
          "the u.item beside --data=ml-100k:DIR/u.data)");
ABSL_FLAG(std::string, enrollment_token, fedmf::rpc::kDemoEnrollmentToken,
          "shared enrollment token (the coordinator's)");
ABSL_FLAG(std::string, tls_ca, "",
          "PEM CA bundle that signed the coordinator's certificate: TLS on (empty: plaintext, "
          "for loopback demos)");
ABSL_FLAG(std::string, tls_cert, "",
          "PEM certificate of this client (mutual TLS: the coordinator takes the identity from "
          "its CN); needs --tls_ca and --tls_key");
ABSL_FLAG(std::string, tls_key, "", "PEM private key of --tls_cert");
ABSL_FLAG(std::string, tls_server_name, "",
          "name to verify in the coordinator's certificate (default: the host of --coordinator)");
ABSL_FLAG(std::string, name, "", "name in the coordinator's logs (default: the shard)");
ABSL_FLAG(double, give_up_after_s, 0,
          "exit after this many seconds without a working stream (0: never)");
ABSL_FLAG(int64_t, chunk_bytes, static_cast<int64_t>(fedmf::wire::kDefaultChunkBytes),
          "no message to the coordinator serializes to more than this many bytes: larger ones "
          "travel as chunks");
ABSL_FLAG(int64_t, max_download_bytes, static_cast<int64_t>(fedmf::wire::kMaxTransferBytes),
          "largest message from the coordinator reassembled from chunks, in bytes (64 MiB to "
          "2147483647, protobuf's limit); larger ones end the stream. At least the coordinator's "
          "--max_plan_bytes, to take its plans");
ABSL_FLAG(int, top_n, 5, "at the end, print the local top-N of the first hosted user (0: none)");
ABSL_FLAG(bool, one_stream_per_user, false,
          "register every user as its own client (own signing key, own stream) on gRPC's "
          "callback API, no thread per stream: e.g. thousands of connected clients for a load "
          "test");
ABSL_FLAG(int, channels, 1,
          "--one_stream_per_user: spread the streams over this many channels (TCP connections)");
ABSL_FLAG(int, workers, 2, "--one_stream_per_user: threads running the users' work");
ABSL_FLAG(std::string, insecure_noise_seed, "",
          "TESTS AND REPRODUCIBILITY ONLY, VOIDS PRIVACY: key every user's noise generator from "
          "this integer and the participant id instead of the OS CSPRNG, so the noise is "
          "predictable (a run then matches fedmf-sim --seed=N); empty: OS CSPRNG");
ABSL_FLAG(std::string, state_dir, "",
          "directory of this client's local state file, local_state.pb: every hosted "
          "participant's algorithm states and, with --participant_budget, its privacy ledger. "
          "Restored on start (a corrupt file, or one of other users, is an error; no file: a "
          "fresh start), rewritten atomically before any contribution is sent; empty: kept in "
          "memory only");
ABSL_FLAG(std::string, participant_budget, "",
          "every hosted participant keeps its own privacy ledger under this budget and sits out "
          "(a dropout) any phase it cannot pay: pure:EPS, rdp:EPS@ORDER or approx:EPS,DELTA, "
          "optionally followed by /user (default) or /rating, e.g. approx:1,1e-6/rating. Needs "
          "--state_dir (a ledger forgotten on restart would let a participant overspend) unless "
          "--ephemeral_participant_budget; empty: no participant budget");
ABSL_FLAG(bool, ephemeral_participant_budget, false,
          "TESTS AND DEMOS ONLY: allow --participant_budget without --state_dir; the ledgers then "
          "start empty on every start, so across restarts a participant can spend more than its "
          "budget");

namespace fedmf::client {
namespace {

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop.store(true); }

absl::StatusOr<std::vector<int32_t>> SelectUsers(int32_t num_users) {
  std::vector<int32_t> users;
  const std::string list = absl::GetFlag(FLAGS_users);
  if (!list.empty()) {
    for (absl::string_view part : absl::StrSplit(list, ',')) {
      int32_t u = 0;
      if (!absl::SimpleAtoi(part, &u)) {
        return absl::InvalidArgumentError(absl::StrCat("--users: '", part, "' is not an index"));
      }
      users.push_back(u);
    }
    return users;
  }
  const std::string shard = absl::GetFlag(FLAGS_shard);
  std::vector<std::string> parts = absl::StrSplit(shard, '/');
  int32_t i = 0, n = 0;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &i) || !absl::SimpleAtoi(parts[1], &n) ||
      n < 1 || i < 0 || i >= n) {
    return absl::InvalidArgumentError(
        absl::StrCat("--shard must be i/N with 0 <= i < N, got '", shard, "'"));
  }
  for (int32_t u = i; u < num_users; u += n) users.push_back(u);
  return users;
}

// --party hosts one silo party: the flags that choose users must keep their defaults with it.
absl::Status CheckPartyExcludesUsers() {
  std::vector<std::string> given;
  for (const absl::CommandLineFlag* flag :
       {&absl::GetFlagReflectionHandle(FLAGS_shard), &absl::GetFlagReflectionHandle(FLAGS_users),
        &absl::GetFlagReflectionHandle(FLAGS_one_stream_per_user)}) {
    if (flag->CurrentValue() != flag->DefaultValue()) {
      given.push_back(absl::StrCat("--", flag->Name(), "=", flag->CurrentValue()));
    }
  }
  if (given.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("--party hosts one silo party and excludes --shard, --users and "
                   "--one_stream_per_user (given: ",
                   absl::StrJoin(given, ", "), ")"));
}

// --participant_budget (nullopt: none), refused without --state_dir unless the user accepts
// ledgers that a restart forgets (--ephemeral_participant_budget).
absl::StatusOr<std::optional<dp::PrivacyBudget>> ParticipantBudgetFromFlags() {
  const std::string spec = absl::GetFlag(FLAGS_participant_budget);
  const bool has_state_dir = !absl::GetFlag(FLAGS_state_dir).empty();
  const bool ephemeral = absl::GetFlag(FLAGS_ephemeral_participant_budget);
  if (ephemeral && (spec.empty() || has_state_dir)) {
    return absl::InvalidArgumentError(
        "--ephemeral_participant_budget is only for a --participant_budget without --state_dir");
  }
  if (spec.empty()) return std::nullopt;
  if (!has_state_dir && !ephemeral) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--participant_budget=", spec,
        " needs --state_dir: without it every restart forgets what the participants spent and "
        "they could overspend (--ephemeral_participant_budget accepts that, for tests)"));
  }
  absl::StatusOr<dp::PrivacyBudget> budget = dp::ParseBudgetSpec(spec);
  if (!budget.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--participant_budget: ", budget.status().message()));
  }
  return *budget;
}

absl::Status Run() {
  absl::StatusOr<std::optional<dp::PrivacyBudget>> participant_budget =
      ParticipantBudgetFromFlags();
  if (!participant_budget.ok()) return participant_budget.status();
  const std::string party_flag = absl::GetFlag(FLAGS_party);
  std::optional<PartySpec> party;
  if (!party_flag.empty()) {
    if (absl::Status s = CheckPartyExcludesUsers(); !s.ok()) return s;
    absl::StatusOr<PartySpec> spec = ParsePartySpec(party_flag);
    if (!spec.ok()) return spec.status();
    party = *spec;
  }
  absl::StatusOr<data::RatingsDataset> full = data::LoadDataset(absl::GetFlag(FLAGS_data));
  if (!full.ok()) return full.status();
  auto data = std::make_shared<data::RatingsDataset>();
  std::shared_ptr<data::RatingsDataset> test;  // held-out ratings, stay on this machine
  if (absl::GetFlag(FLAGS_split).empty()) {
    *data = std::move(*full);
  } else {
    absl::StatusOr<std::vector<data::TrainTest>> splits =
        data::MakeSplits(*full, absl::GetFlag(FLAGS_split), absl::GetFlag(FLAGS_split_seed));
    if (!splits.ok()) return splits.status();
    *data = std::move((*splits)[0].train);
    test = std::make_shared<data::RatingsDataset>(std::move((*splits)[0].test));
  }
  absl::StatusOr<std::vector<int32_t>> users =
      party.has_value() ? std::vector<int32_t>() : SelectUsers(data->num_users());
  if (!users.ok()) return users.status();
  const int64_t chunk_bytes = absl::GetFlag(FLAGS_chunk_bytes);
  if (absl::Status s = wire::ValidateChunkBytes(chunk_bytes); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--chunk_bytes: ", s.message()));
  }
  const int64_t max_download_bytes = absl::GetFlag(FLAGS_max_download_bytes);
  if (absl::Status s = wire::ValidateTransferBytes("--max_download_bytes", max_download_bytes);
      !s.ok()) {
    return s;
  }
  std::optional<uint64_t> noise_seed;
  if (const std::string seed = absl::GetFlag(FLAGS_insecure_noise_seed); !seed.empty()) {
    uint64_t value = 0;
    if (!absl::SimpleAtoi(seed, &value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--insecure_noise_seed: '", seed, "' is not an unsigned integer"));
    }
    noise_seed = value;
    EventLine("insecure_noise_seed").Add("warning", "noise is predictable: no privacy");
  }
  const bool per_user = absl::GetFlag(FLAGS_one_stream_per_user);
  std::vector<std::unique_ptr<ParticipantHost>> hosts;
  if (party.has_value()) {
    absl::StatusOr<std::unique_ptr<ParticipantHost>> host =
        HostParty(*party, absl::GetFlag(FLAGS_item_genres), absl::GetFlag(FLAGS_data), *data,
                  test.get(), noise_seed);
    if (!host.ok()) return host.status();
    hosts.push_back(std::move(*host));
  } else if (per_user) {
    for (int32_t user : *users) {
      absl::StatusOr<std::unique_ptr<ParticipantHost>> host =
          ParticipantHost::Create(data, {user}, test, noise_seed);
      if (!host.ok()) return host.status();
      hosts.push_back(std::move(*host));
    }
    if (hosts.empty()) return absl::InvalidArgumentError("no users selected");
  } else {
    absl::StatusOr<std::unique_ptr<ParticipantHost>> host =
        ParticipantHost::Create(data, *users, test, noise_seed);
    if (!host.ok()) return host.status();
    hosts.push_back(std::move(*host));
  }
  for (const auto& host : hosts) {
    host->set_chunk_bytes(static_cast<size_t>(chunk_bytes));
    host->set_max_download_bytes(static_cast<uint64_t>(max_download_bytes));
  }
  // The participants' budgets and saved local state come back before anything is registered.
  if (participant_budget->has_value()) {
    for (const auto& host : hosts) {
      if (absl::Status s = host->SetParticipantBudget(**participant_budget); !s.ok()) return s;
    }
    EventLine("participant_budget")
        .Add("budget", dp::FormatBudget(**participant_budget))
        .Add("persisted", absl::GetFlag(FLAGS_state_dir).empty() ? "no" : "yes");
  }
  std::unique_ptr<LocalStateFile> state_file;
  if (const std::string dir = absl::GetFlag(FLAGS_state_dir); !dir.empty()) {
    absl::StatusOr<std::unique_ptr<LocalStateFile>> attached = LocalStateFile::Attach(dir, hosts);
    if (!attached.ok()) return attached.status();
    state_file = std::move(*attached);
    EventLine("local_state")
        .Add("file", state_file->path())
        .Add("restored_participants", state_file->restored_participants());
  }

  GrpcClientOptions options;
  options.target = absl::GetFlag(FLAGS_coordinator);
  options.name = absl::GetFlag(FLAGS_name);
  if (options.name.empty()) {
    options.name = party.has_value() ? absl::StrCat("party-", party_flag)
                                     : absl::StrCat("shard-", absl::GetFlag(FLAGS_shard));
  }
  options.enrollment_token = absl::GetFlag(FLAGS_enrollment_token);
  options.tls = {.ca_file = absl::GetFlag(FLAGS_tls_ca),
                 .cert_file = absl::GetFlag(FLAGS_tls_cert),
                 .key_file = absl::GetFlag(FLAGS_tls_key),
                 .server_name = absl::GetFlag(FLAGS_tls_server_name)};
  // Bad TLS settings or unreadable files fail here, before any connection attempt.
  if (absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> c =
          rpc::MakeClientCredentials(options.tls);
      !c.ok()) {
    return c.status();
  }
  rpc::WarnIfPlaintextOffLoopback("fedmf-client", options.target, options.tls.enabled());
  if (const double s = absl::GetFlag(FLAGS_give_up_after_s); s > 0) {
    options.backoff.give_up_after = absl::Seconds(s);
  }
  EventLine("client_start")
      .Add("client", options.name)
      .Add("coordinator", options.target)
      .Add("tls", !options.tls.enabled()          ? "off"
                  : options.tls.cert_file.empty() ? "server"
                                                  : "mutual")
      .Add("users", users->size())
      .Add("party", party.has_value() ? party_flag : "none")
      .Add("streams", hosts.size())
      .Add("dataset", data::DescribeDataset(*data));
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGINT, OnSignal);
  absl::Status status;
  if (per_user) {
    StreamPoolOptions pool;
    pool.client = options;
    pool.channels = absl::GetFlag(FLAGS_channels);
    pool.workers = absl::GetFlag(FLAGS_workers);
    // A socket per channel plus gRPC's own descriptors (pipes, epoll, the listener-free client).
    const uint64_t needed =
        static_cast<uint64_t>(std::min<size_t>(std::max(pool.channels, 1), hosts.size())) + 64;
    if (absl::Status s = RequireOpenFiles(needed, absl::StrCat(pool.channels, " channels"));
        !s.ok()) {
      return s;
    }
    status = RunStreamPool(hosts, pool, g_stop);
  } else {
    status = RunGrpcClient(*hosts.front(), options, g_stop);
  }
  int64_t rounds = 0;
  for (const auto& host : hosts) rounds = std::max(rounds, host->rounds_completed());
  EventLine("client_stop")
      .Add("client", options.name)
      .Add("rounds", rounds)
      .Add("status", status.ToString());
  ParticipantHost* first_host = hosts.front().get();
  const int top_n = absl::GetFlag(FLAGS_top_n);
  if (status.ok() && top_n > 0 && !users->empty() && first_host->contributor() != nullptr) {
    const Participant* first = first_host->Find(static_cast<uint32_t>((*users)[0]) + 1);
    absl::StatusOr<std::vector<mf::Recommendation>> top =
        first->Recommend(first_host->contributor()->scorer(), top_n);
    if (top.ok()) {
      std::string items;
      for (const mf::Recommendation& r : *top)
        absl::StrAppend(&items, items.empty() ? "" : ",", r.item);
      EventLine("local_top_n")
          .Add("client", options.name)
          .Add("user", (*users)[0])
          .Add("items", items);
    }
  }
  if (absl::IsCancelled(status)) return absl::OkStatus();  // SIGTERM/SIGINT: a clean stop
  return status;
}

}  // namespace
}  // namespace fedmf::client

int main(int argc, char** argv) {
  fedmf::InitFlagsOnlyCommandLine(
      argc, argv,
      "fedmf-client --coordinator=HOST:PORT [--data=SPEC] [--shard=i/N | --users=LIST | "
      "--party=KIND:I/N]: hosts users of a dataset, or one silo party, in federated training");
  return fedmf::ExitCode(fedmf::client::Run());
}
