#include "client/grpc_client.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "client/registration.h"
#include "client/result_log.h"
#include "common/util/event_log.h"
#include "fedmf/v1/federation.grpc.pb.h"
#include "rpc/channel.h"
#include "wire/limits.h"

namespace fedmf::client {
namespace {

// kCheckIn: the coordinator asked the client to come back later (Session::check_in()).
enum class StreamEnd { kDone, kBroken, kRefused, kCheckIn };

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
          const std::shared_ptr<grpc::Channel>& channel)
      : host_(host), options_(options), watcher_(watcher), stub_(v1::Federation::NewStub(channel)) {
    host_.set_result_observer(
        [name = options_.name](const v1::RoundResult& r) { LogRoundResult(name, r); });
  }

  // One registration and stream; `status` is set for kRefused and kBroken.
  StreamEnd Run(absl::Status& status) {
    const v1::RegisterRequest request =
        MakeRegisterRequest(host_, options_.name, options_.enrollment_token);
    v1::RegisterResponse response;
    {
      grpc::ClientContext context;
      context.set_deadline(absl::ToChronoTime(absl::Now() + kRegisterDeadline));
      watcher_.Watch(&context);
      const grpc::Status s = stub_->Register(&context, request, &response);
      watcher_.Watch(nullptr);
      if (!s.ok()) {
        status = rpc::FromGrpc(s);
        return rpc::IsRefusal(s.error_code()) ? StreamEnd::kRefused : StreamEnd::kBroken;
      }
    }
    status = ValidateRegisterResponse(response);
    if (!status.ok()) return StreamEnd::kBroken;  // retried: a coordinator fault, not a refusal
    if (response.training_done()) {               // joined after the end: nothing to do
      EndTrainingFromRegistration(host_, response);
      return StreamEnd::kDone;
    }
    EventLine("registered")
        .Add("client", options_.name)
        .Add("users", host_.participant_ids().size())
        .Add("coordinator_round", response.current_round());
    grpc::ClientContext context;
    context.AddMetadata(wire::kSessionTokenMetadataKey, response.session_token());
    watcher_.Watch(&context);
    opened_ = absl::Now();
    std::unique_ptr<grpc::ClientReaderWriter<v1::ClientMessage, v1::ServerMessage>> stream =
        stub_->Participate(&context);
    bool writable = true;
    v1::ServerMessage message;
    while (writable && stream->Read(&message)) {
      // Each reply is written (a blocking write) before the host builds the next batch.
      const absl::Status handled = host_.Handle(message, [&](v1::ClientMessage reply) {
        writable = stream->Write(reply);
        return writable ? absl::OkStatus()
                        : absl::UnavailableError("the coordinator ended the stream");
      });
      if (IsCatalogueMismatch(handled)) {  // no retry fixes it: stop, dropped at once
        context.TryCancel();
        stream->Finish();
        watcher_.Watch(nullptr);
        status = handled;
        return StreamEnd::kRefused;
      }
      if (!handled.ok()) {
        if (writable) {
          EventLine("client_error").Add("client", options_.name).Add("error", handled.ToString());
        }
        continue;
      }
      if (host_.training_done()) {
        stream->WritesDone();
        break;
      }
    }
    if (!writable) {
      // A failed write means the coordinator ended the stream. Finish waits for every message
      // still in flight to be read (gRPC's synchronous contract): read them, or it never returns.
      while (stream->Read(&message)) {
      }
    }
    const grpc::Status s = stream->Finish();
    watcher_.Watch(nullptr);
    if (host_.training_done()) return StreamEnd::kDone;
    check_in_ = host_.TakeCheckIn();
    if (check_in_ && s.ok()) return StreamEnd::kCheckIn;
    status = rpc::FromGrpc(s);
    if (status.ok()) status = absl::UnavailableError("stream closed by the coordinator");
    return rpc::IsRefusal(s.error_code()) ? StreamEnd::kRefused : StreamEnd::kBroken;
  }

  // When Run opened the Participate stream; unset when it ended before.
  std::optional<absl::Time> opened() const { return opened_; }
  // After kCheckIn: how long to wait before registering again.
  absl::Duration check_in() const { return check_in_.value_or(absl::ZeroDuration()); }

 private:
  ParticipantHost& host_;
  const GrpcClientOptions& options_;
  StopWatcher& watcher_;
  std::unique_ptr<v1::Federation::Stub> stub_;
  std::optional<absl::Time> opened_;
  std::optional<absl::Duration> check_in_;
};

// Returns at `until` or once `stop` is set.
void SleepUntil(absl::Time until, const std::atomic<bool>& stop) {
  while (absl::Now() < until && !stop.load()) {
    absl::SleepFor(std::min(absl::Milliseconds(50), until - absl::Now()));
  }
}

}  // namespace

absl::Status RunGrpcClient(ParticipantHost& host, const GrpcClientOptions& options,
                           const std::atomic<bool>& stop) {
  StopWatcher watcher(stop);
  absl::BitGen jitter;
  Backoff backoff(options.backoff, jitter, absl::Now());
  while (!stop.load()) {
    absl::Time resume;  // when to register again
    {
      // A fresh channel per attempt (re-reading the TLS files, so renewed certificates apply),
      // gone before the wait: a device checked in for later holds no connection.
      absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
          rpc::MakeChannel({.target = options.target, .tls = options.tls});
      if (!channel.ok()) return channel.status();
      Session session(host, options, watcher, *channel);
      absl::Status status;
      const StreamEnd end = session.Run(status);
      if (end == StreamEnd::kDone) return absl::OkStatus();
      if (stop.load()) break;
      if (end == StreamEnd::kRefused) return status;
      if (end == StreamEnd::kCheckIn) {
        resume = absl::Now() + session.check_in();
        backoff.Worked(resume);
        EventLine("check_in_later")
            .Add("client", options.name)
            .Add("wait_s", absl::ToDoubleSeconds(session.check_in()));
      } else {
        if (session.opened()) backoff.StreamEnded(*session.opened(), absl::Now());
        if (backoff.ShouldGiveUp(absl::Now())) {
          return absl::UnavailableError(
              absl::StrCat("giving up on ", options.target, ": ", status.ToString()));
        }
        const absl::Duration wait = backoff.NextWait();
        EventLine("reconnect")
            .Add("client", options.name)
            .Add("error", status.ToString())
            .Add("wait_s", absl::ToDoubleSeconds(wait));
        resume = absl::Now() + wait;
      }
    }
    SleepUntil(resume, stop);
  }
  return absl::CancelledError("stopped by a signal");
}

}  // namespace fedmf::client
