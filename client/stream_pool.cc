#include "client/stream_pool.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "client/registration.h"
#include "client/result_log.h"
#include "common/util/event_log.h"
#include "fedmf/v1/federation.grpc.pb.h"
#include "rpc/channel.h"
#include "wire/limits.h"

namespace fedmf::client {
namespace {

class Pool;

// One attempt at a Participate stream of one host. Lifetime: created and destroyed by the pool's
// main thread only (after OnDone has posted its end), so the main thread may cancel it safely.
// A hold keeps the call alive while a message is with a worker; reads are issued only when no
// message is pending, writes one at a time.
class StreamCall final : public grpc::ClientBidiReactor<v1::ClientMessage, v1::ServerMessage> {
 public:
  StreamCall(Pool* pool, size_t member, ParticipantHost* host)
      : pool_(pool), member_(member), host_(host) {}

  void Start(v1::Federation::Stub& stub, const std::string& session_token) {
    context_.AddMetadata(wire::kSessionTokenMetadataKey, session_token);
    stub.async()->Participate(&context_, this);
    AddHold();  // released when the read side ends
    StartRead(&incoming_);
    StartCall();
  }

  // On a worker thread: the host's replies to `incoming_`, then the next read. Nothing touches the
  // call after StartRead (it may end at once).
  void Process();

  void Cancel() { context_.TryCancel(); }
  // The next message (after one the observer withheld or cut the stream at).
  void ReadNext() { StartRead(&incoming_); }
  const grpc::Status& status() const { return status_; }
  absl::Time started() const { return started_; }

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override {
    const v1::ClientMessage* next = nullptr;
    bool writes_done = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      writes_.pop_front();
      if (!ok || closed_) {
        writes_.clear();
        writing_ = false;
      } else if (!writes_.empty()) {
        next = &writes_.front();
      } else {
        writing_ = false;
        writes_done = std::exchange(writes_done_pending_, false);
      }
    }
    if (next != nullptr) StartWrite(next);
    if (writes_done) StartWritesDone();
  }
  void OnDone(const grpc::Status& status) override;

 private:
  void Write(v1::ClientMessage message) {
    const v1::ClientMessage* next = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (closed_) return;
      writes_.push_back(std::move(message));
      if (writing_) return;
      writing_ = true;
      next = &writes_.front();  // deque elements stay put while others are appended
    }
    StartWrite(next);
  }
  // Half-closes once the queued writes are out.
  void FinishWrites() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (writing_) {
        writes_done_pending_ = true;
        return;
      }
    }
    StartWritesDone();
  }

  Pool* pool_;
  size_t member_;
  ParticipantHost* host_;
  grpc::ClientContext context_;
  v1::ServerMessage incoming_;
  grpc::Status status_;
  const absl::Time started_ = absl::Now();
  std::mutex mu_;
  std::deque<v1::ClientMessage> writes_;  // front is being written while writing_
  bool writing_ = false;
  bool writes_done_pending_ = false;
  bool closed_ = false;  // the read side ended: no more writes
};

// A registration in flight (owned like StreamCall).
struct RegisterCall {
  grpc::ClientContext context;
  v1::RegisterRequest request;
  v1::RegisterResponse response;
  grpc::Status status;
  absl::Time asked;
  absl::Time answered;
};

class Pool {
 public:
  // `channels`: at least one, each its own TCP connection (MakeChannel, own_connection).
  Pool(const std::vector<std::unique_ptr<ParticipantHost>>& hosts, const StreamPoolOptions& options,
       std::vector<std::shared_ptr<grpc::Channel>> channels)
      : options_(options), channels_(std::move(channels)) {
    const size_t count = channels_.size();
    for (const std::shared_ptr<grpc::Channel>& channel : channels_) {
      stubs_.push_back(v1::Federation::NewStub(channel));
    }
    const absl::Time now = absl::Now();
    members_.reserve(hosts.size());
    for (size_t i = 0; i < hosts.size(); ++i) {
      const std::vector<uint32_t> ids = hosts[i]->participant_ids();
      members_.emplace_back(hosts[i].get(), stubs_[i % count].get(),
                            absl::StrCat(options.client.name, "-p", ids.empty() ? 0 : ids.front()),
                            Backoff(options.client.backoff, jitter_, now));
    }
    if (!members_.empty()) {  // one line per round is enough for thousands of streams
      members_[0].host->set_result_observer(
          [name = members_[0].name](const v1::RoundResult& r) { LogRoundResult(name, r); });
    }
  }

  absl::Status Run(const std::atomic<bool>& stop);

  // From gRPC threads: a call ended; the main thread takes it from here.
  void Post(size_t member) {
    std::lock_guard<std::mutex> lock(mu_);
    ended_.push_back(member);
    cv_.notify_all();
  }
  void Enqueue(StreamCall* call) {
    std::lock_guard<std::mutex> lock(work_mu_);
    work_.push_back(call);
    work_cv_.notify_one();
  }
  void EnqueueAt(StreamCall* call, absl::Time at) {
    std::lock_guard<std::mutex> lock(work_mu_);
    delayed_.emplace(at, call);
    work_cv_.notify_one();
  }
  StreamObserver* observer() const { return options_.observer; }

 private:
  enum class State { kWaiting, kRegistering, kStreaming, kDone };
  struct Member {
    Member(ParticipantHost* host, v1::Federation::Stub* stub, std::string name, Backoff backoff)
        : host(host), stub(stub), name(std::move(name)), backoff(backoff) {}

    ParticipantHost* host;
    v1::Federation::Stub* stub;
    std::string name;
    Backoff backoff;
    State state = State::kWaiting;
    absl::Time retry_at = absl::InfinitePast();
    std::unique_ptr<RegisterCall> registering;
    std::unique_ptr<StreamCall> stream;
  };

  // Delayed messages (observer) keep their call alive, so quit_ comes only after they ran.
  void Work() {
    while (true) {
      StreamCall* call = nullptr;
      {
        std::unique_lock<std::mutex> lock(work_mu_);
        while (true) {
          const absl::Time now = absl::Now();
          while (!delayed_.empty() && delayed_.begin()->first <= now) {
            work_.push_back(delayed_.begin()->second);
            delayed_.erase(delayed_.begin());
          }
          if (!work_.empty()) break;
          if (quit_) return;
          if (delayed_.empty()) {
            work_cv_.wait(lock);
          } else {
            work_cv_.wait_for(lock, absl::ToChronoNanoseconds(delayed_.begin()->first - now));
          }
        }
        call = work_.front();
        work_.pop_front();
      }
      call->Process();
    }
  }

  void StartRegister(size_t i);
  // The main thread's handling of an ended call; sets `failure` for a refusal or giving up.
  void HandleEnd(size_t i, std::optional<absl::Status>& failure);
  void Retry(size_t i, const absl::Status& why, std::optional<absl::Status>& failure);

  const StreamPoolOptions& options_;
  std::vector<std::shared_ptr<grpc::Channel>> channels_;
  std::vector<std::unique_ptr<v1::Federation::Stub>> stubs_;
  absl::BitGen jitter_;  // every member's Backoff draws from it, on the main thread
  std::vector<Member> members_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<size_t> ended_;
  std::mutex work_mu_;
  std::condition_variable work_cv_;
  std::deque<StreamCall*> work_;
  std::multimap<absl::Time, StreamCall*> delayed_;
  bool quit_ = false;
  bool cancelling_ = false;  // main thread only
};

void StreamCall::OnReadDone(bool ok) {
  if (ok) {
    StreamAction action;
    if (pool_->observer() != nullptr) action = pool_->observer()->OnReceive(member_, incoming_);
    if (action.disconnect) {
      Cancel();
      ReadNext();  // fails at once and ends the read side
    } else if (!action.deliver) {
      ReadNext();
    } else if (action.delay > absl::ZeroDuration()) {
      pool_->EnqueueAt(this, absl::Now() + action.delay);
    } else {
      pool_->Enqueue(this);
    }
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  RemoveHold();
}

void StreamCall::Process() {
  // Queued as each is ready; a pool's host is typically one user, so a task's queue is one reply.
  const absl::Status handled = host_->Handle(incoming_, [this](v1::ClientMessage reply) {
    Write(std::move(reply));
    return absl::OkStatus();
  });
  if (!handled.ok()) EventLine("client_error").Add("error", handled.ToString());
  if (host_->training_done()) FinishWrites();
  StartRead(&incoming_);
}

void StreamCall::OnDone(const grpc::Status& status) {
  status_ = status;
  pool_->Post(member_);  // last: the main thread may destroy this call from now on
}

void Pool::StartRegister(size_t i) {
  Member& m = members_[i];
  m.state = State::kRegistering;
  m.registering = std::make_unique<RegisterCall>();
  RegisterCall* call = m.registering.get();
  call->request = MakeRegisterRequest(*m.host, m.name, options_.client.enrollment_token);
  call->asked = absl::Now();
  call->context.set_deadline(absl::ToChronoTime(call->asked + kRegisterDeadline));
  m.stub->async()->Register(&call->context, &call->request, &call->response,
                            [this, i, call](grpc::Status s) {
                              call->answered = absl::Now();
                              call->status = std::move(s);
                              Post(i);
                            });
}

void Pool::Retry(size_t i, const absl::Status& why, std::optional<absl::Status>& failure) {
  Member& m = members_[i];
  const absl::Time now = absl::Now();
  if (m.backoff.ShouldGiveUp(now)) {
    failure = absl::UnavailableError(
        absl::StrCat(m.name, ": giving up on ", options_.client.target, ": ", why.ToString()));
    return;
  }
  const bool at_max = m.backoff.at_max();
  const absl::Duration wait = m.backoff.NextWait();
  if (i == 0 || at_max) {
    EventLine("reconnect")
        .Add("client", m.name)
        .Add("error", why.ToString())
        .Add("wait_s", absl::ToDoubleSeconds(wait));
  }
  m.state = State::kWaiting;
  m.retry_at = now + wait;
}

void Pool::HandleEnd(size_t i, std::optional<absl::Status>& failure) {
  Member& m = members_[i];
  const State ended = m.state;
  m.state = State::kWaiting;  // the call is over; the branches below decide what follows
  if (ended == State::kRegistering) {
    std::unique_ptr<RegisterCall> call = std::move(m.registering);
    if (!call->status.ok()) {
      if (rpc::IsRefusal(call->status.error_code())) {
        failure = rpc::FromGrpc(call->status);
        return;
      }
      Retry(i, rpc::FromGrpc(call->status), failure);
      return;
    }
    if (cancelling_) return;
    if (observer() != nullptr) observer()->OnRegistered(i, call->asked, call->answered);
    // Retried: a coordinator fault, not a refusal.
    if (absl::Status valid = ValidateRegisterResponse(call->response); !valid.ok()) {
      Retry(i, valid, failure);
      return;
    }
    if (call->response.training_done()) {  // joined after the end: nothing to do
      EndTrainingFromRegistration(*m.host, call->response);
      m.state = State::kDone;
      return;
    }
    m.state = State::kStreaming;
    m.stream = std::make_unique<StreamCall>(this, i, m.host);
    m.stream->Start(*m.stub, call->response.session_token());
    return;
  }
  std::unique_ptr<StreamCall> call = std::move(m.stream);
  if (m.host->training_done()) {
    m.state = State::kDone;
    return;
  }
  if (rpc::IsRefusal(call->status().error_code())) {
    failure = rpc::FromGrpc(call->status());
    return;
  }
  if (const std::optional<absl::Duration> later = m.host->TakeCheckIn();
      later && call->status().ok()) {
    m.retry_at = absl::Now() + *later;  // state kWaiting: registers again then
    m.backoff.Worked(m.retry_at);
    return;
  }
  m.backoff.StreamEnded(call->started(), absl::Now());
  absl::Status why = rpc::FromGrpc(call->status());
  if (why.ok()) why = absl::UnavailableError("stream closed by the coordinator");
  Retry(i, why, failure);
}

absl::Status Pool::Run(const std::atomic<bool>& stop) {
  std::vector<std::thread> workers;
  for (int w = 0; w < options_.workers; ++w) workers.emplace_back([this] { Work(); });
  std::optional<absl::Status> failure;
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    std::vector<size_t> ended = std::exchange(ended_, {});
    lock.unlock();
    for (size_t i : ended) HandleEnd(i, failure);
    size_t done = 0, active = 0;
    const absl::Time now = absl::Now();
    for (size_t i = 0; i < members_.size(); ++i) {
      Member& m = members_[i];
      if (m.state == State::kDone) ++done;
      if (m.state == State::kRegistering || m.state == State::kStreaming) ++active;
      if (!cancelling_ && !failure && !stop.load() && m.state == State::kWaiting &&
          m.retry_at <= now) {
        StartRegister(i);
        ++active;
      }
    }
    if ((failure || stop.load()) && !cancelling_) {
      cancelling_ = true;
      for (Member& m : members_) {
        if (m.registering) m.registering->context.TryCancel();
        if (m.stream) m.stream->Cancel();
      }
    }
    lock.lock();
    if (ended_.empty()) {
      if (cancelling_ && active == 0) break;
      if (!cancelling_ && done == members_.size()) break;
      cv_.wait_for(lock, std::chrono::milliseconds(50));
    }
  }
  lock.unlock();
  {
    std::lock_guard<std::mutex> work_lock(work_mu_);
    quit_ = true;
    work_cv_.notify_all();
  }
  for (std::thread& t : workers) t.join();
  if (failure) return *failure;
  if (cancelling_) return absl::CancelledError("stopped by a signal");
  return absl::OkStatus();
}

}  // namespace

absl::Status RunStreamPool(const std::vector<std::unique_ptr<ParticipantHost>>& hosts,
                           const StreamPoolOptions& options, const std::atomic<bool>& stop) {
  if (hosts.empty()) return absl::InvalidArgumentError("no hosts to run");
  if (options.channels < 1 || options.workers < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "channels (", options.channels, ") and workers (", options.workers, ") must be >= 1"));
  }
  const size_t count = std::min<size_t>(static_cast<size_t>(options.channels), hosts.size());
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  for (size_t c = 0; c < count; ++c) {
    // Several addresses (front replicas): channel c starts from the c-th.
    absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
        rpc::MakeChannel({.target = rpc::RotatedTarget(options.client.target, c),
                          .tls = options.client.tls,
                          .own_connection = true});
    if (!channel.ok()) return channel.status();
    channels.push_back(*std::move(channel));
  }
  Pool pool(hosts, options, std::move(channels));
  return pool.Run(stop);
}

}  // namespace fedmf::client
