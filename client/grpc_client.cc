#include "client/grpc_client.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "client/channel.h"
#include "common/util/event_log.h"
#include "fedmf/v1/federation.grpc.pb.h"
#include "wire/limits.h"

namespace fedmf::client {
namespace {

enum class StreamEnd { kDone, kBroken, kRefused };

// Cancels the context it watches once `stop` is set, so a blocked Read returns.
class StopWatcher {
 public:
  explicit StopWatcher(const std::atomic<bool>& stop)
      : thread_([this, &stop] {
          while (!done_.load()) {
            if (stop.load()) {
              std::lock_guard<std::mutex> lock(mu_);
              if (context_ != nullptr) context_->TryCancel();
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
          }
        }) {}
  ~StopWatcher() {
    done_.store(true);
    thread_.join();
  }
  void Watch(grpc::ClientContext* context) {
    std::lock_guard<std::mutex> lock(mu_);
    context_ = context;
  }

 private:
  std::mutex mu_;
  grpc::ClientContext* context_ = nullptr;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

class Session {
 public:
  Session(ParticipantHost& host, const GrpcClientOptions& options, StopWatcher& watcher,
          const std::string& public_key, const std::shared_ptr<grpc::Channel>& channel)
      : host_(host),
        options_(options),
        watcher_(watcher),
        public_key_(public_key),
        stub_(v1::Federation::NewStub(channel)) {}

  // One registration and stream; `status` is set for kRefused and kBroken.
  StreamEnd Run(absl::Status& status) {
    v1::RegisterRequest request;
    request.set_protocol_version(wire::kProtocolVersion);
    request.set_client_name(options_.name);
    request.set_enrollment_token(options_.enrollment_token);
    request.set_signing_public_key(public_key_);
    for (uint32_t id : host_.participant_ids()) request.add_participant_ids(id);
    v1::RegisterResponse response;
    {
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
      watcher_.Watch(&context);
      const grpc::Status s = stub_->Register(&context, request, &response);
      watcher_.Watch(nullptr);
      if (!s.ok()) {
        status = FromGrpc(s);
        return IsRefusal(s.error_code()) ? StreamEnd::kRefused : StreamEnd::kBroken;
      }
    }
    if (response.training_done()) {  // joined after the end: nothing to do
      v1::ServerMessage done;
      done.mutable_result()->set_round(response.current_round());
      done.mutable_result()->set_training_done(true);
      (void)host_.Handle(done);
      return StreamEnd::kDone;
    }
    EventLine("registered")
        .Add("client", options_.name)
        .Add("users", host_.participant_ids().size())
        .Add("coordinator_round", response.current_round());
    grpc::ClientContext context;
    watcher_.Watch(&context);
    std::unique_ptr<grpc::ClientReaderWriter<v1::ClientMessage, v1::ServerMessage>> stream =
        stub_->Participate(&context);
    v1::ClientMessage hello;
    hello.set_session_token(response.session_token());
    bool writable = stream->Write(hello);
    v1::ServerMessage message;
    while (writable && stream->Read(&message)) {
      absl::StatusOr<std::vector<v1::ClientMessage>> replies = host_.Handle(message);
      if (!replies.ok()) {
        EventLine("client_error")
            .Add("client", options_.name)
            .Add("error", replies.status().ToString());
        continue;
      }
      for (const v1::ClientMessage& reply : *replies) {
        if (!(writable = stream->Write(reply))) break;
      }
      if (message.has_result()) LogResult(message.result());
      if (host_.training_done()) {
        stream->WritesDone();
        break;
      }
    }
    const grpc::Status s = stream->Finish();
    watcher_.Watch(nullptr);
    if (host_.training_done()) return StreamEnd::kDone;
    status = FromGrpc(s);
    if (status.ok()) status = absl::UnavailableError("stream closed by the coordinator");
    return IsRefusal(s.error_code()) ? StreamEnd::kRefused : StreamEnd::kBroken;
  }

 private:
  void LogResult(const v1::RoundResult& r) {
    EventLine("round_result")
        .Add("client", options_.name)
        .Add("round", r.round())
        .Add("kind", r.evaluation() ? "evaluation" : "training")
        .Add("applied", r.applied() ? "yes" : "no")
        .Add("contributors", r.contributors())
        .Add("reason", r.reason());
  }

  ParticipantHost& host_;
  const GrpcClientOptions& options_;
  StopWatcher& watcher_;
  const std::string& public_key_;
  std::unique_ptr<v1::Federation::Stub> stub_;
};

}  // namespace

absl::Status RunGrpcClient(ParticipantHost& host, const GrpcClientOptions& options,
                           const std::atomic<bool>& stop) {
  const std::string public_key = host.signing_public_key();
  StopWatcher watcher(stop);
  absl::BitGen jitter;  // spreads reconnects of many processes; not security relevant
  absl::Duration backoff = options.initial_backoff;
  absl::Time last_ok = absl::Now();
  while (!stop.load()) {
    // A fresh channel per attempt (re-reading the TLS files, so renewed certificates apply).
    absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
        MakeChannel({.target = options.target, .tls = options.tls});
    if (!channel.ok()) return channel.status();
    Session session(host, options, watcher, public_key, *channel);
    absl::Status status;
    const absl::Time started = absl::Now();
    const StreamEnd end = session.Run(status);
    if (end == StreamEnd::kDone) return absl::OkStatus();
    if (stop.load()) break;
    if (end == StreamEnd::kRefused) return status;
    if (absl::Now() - started > absl::Seconds(5)) {  // the stream worked for a while
      backoff = options.initial_backoff;
      last_ok = absl::Now();
    }
    if (absl::Now() - last_ok > options.give_up_after) {
      return absl::UnavailableError(
          absl::StrCat("giving up on ", options.target, ": ", status.ToString()));
    }
    const absl::Duration wait = backoff * absl::Uniform(jitter, 0.8, 1.2);
    EventLine("reconnect")
        .Add("client", options.name)
        .Add("error", status.ToString())
        .Add("wait_s", absl::ToDoubleSeconds(wait));
    for (absl::Time until = absl::Now() + wait; absl::Now() < until && !stop.load();) {
      absl::SleepFor(absl::Milliseconds(50));
    }
    backoff = std::min(backoff * 2, options.max_backoff);
  }
  return absl::CancelledError("stopped by a signal");
}

}  // namespace fedmf::client
