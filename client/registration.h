// How a client process joins the coordinator, the one implementation every way of joining uses
// (the blocking and the callback gRPC transports, the mobile C API, fedmf-sim's in-process
// clients, test fakes): the RegisterRequest for a host's users, the check of the RegisterResponse
// (whose session token the Participate stream carries in its metadata), the deadline of a Register
// call and the backoff between attempts. Transport-free: the callers own their calls and clocks.
#ifndef FEDMF_CLIENT_REGISTRATION_H_
#define FEDMF_CLIENT_REGISTRATION_H_

#include <string>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "client/participant_host.h"
#include "fedmf/v1/federation.pb.h"

namespace fedmf::client {

// How long one Register call may take. Generous because the coordinator answers under the lock its
// round driver holds while it closes a stage or writes a checkpoint, and a burst of registrations
// (thousands of streams of a load test, a fleet restarting) queues behind it; a call that runs out
// is retried with backoff.
inline constexpr absl::Duration kRegisterDeadline = absl::Seconds(30);

// A Participate stream that stayed up longer than this worked: the next attempt starts again from
// the initial backoff (a shorter one was refused or cut at once, so the waits keep growing).
inline constexpr absl::Duration kStreamWorkedAfter = absl::Seconds(5);

// The request that registers every user `host` hosts under its signing key, at this protocol
// version (wire/limits.h); `client_name` names the process in the coordinator's logs.
v1::RegisterRequest MakeRegisterRequest(const ParticipantHost& host, const std::string& client_name,
                                        const std::string& enrollment_token);

// InvalidArgument for a response a client cannot go on from: a negative round, or no session
// token while training is not done (a response with training_done needs none).
absl::Status ValidateRegisterResponse(const v1::RegisterResponse& response);

// For a response with training_done (the client joined after the run ended): hands `host` the
// run's closing RoundResult, so it ends as a host that saw the last round does.
void EndTrainingFromRegistration(ParticipantHost& host, const v1::RegisterResponse& response);

struct BackoffOptions {
  absl::Duration initial = absl::Milliseconds(200);  // > 0: the first wait
  absl::Duration max = absl::Seconds(5);             // >= initial: the waits double up to it
  // Give up after this long without a working stream (infinite: never).
  absl::Duration give_up_after = absl::InfiniteDuration();
};

// The waits between one client identity's attempts to register and stream: `initial`, doubling
// up to `max`, each scaled by a factor uniform in [0.8, 1.2) so clients that lost the
// coordinator together do not all come back at once; back to `initial` after a stream that
// worked. Times are passed in, so tests need no clock. Not thread-safe.
class Backoff {
 public:
  // `jitter` (not security relevant: it only spreads reconnects) must outlive the Backoff. `now`
  // counts as the last time a stream worked, for give_up_after.
  Backoff(const BackoffOptions& options, absl::BitGenRef jitter, absl::Time now);

  // A Participate stream opened at `opened` ended at `now`. After one that stayed up longer than
  // kStreamWorkedAfter, the waits start again from `initial` and give_up_after counts from `now`.
  void StreamEnded(absl::Time opened, absl::Time now);
  // The coordinator answered as it should (e.g. a check-in told the client to come back at
  // `now`): the waits start again from `initial` and give_up_after counts from `now`.
  void Worked(absl::Time now);

  // True when more than give_up_after has passed by `now` since a stream last worked.
  bool ShouldGiveUp(absl::Time now) const;

  // The wait before the next attempt; the one after it is twice as long (up to `max`).
  absl::Duration NextWait();

  // True once the waits have stopped growing (the stream pool logs only those for most streams).
  bool at_max() const { return step_ >= options_.max; }

 private:
  BackoffOptions options_;
  absl::BitGenRef jitter_;
  absl::Duration step_;  // the next wait before jitter
  absl::Time last_worked_;
};

}  // namespace fedmf::client

#endif  // FEDMF_CLIENT_REGISTRATION_H_
