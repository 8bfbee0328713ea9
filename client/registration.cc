#include "client/registration.h"

#include <algorithm>
#include <cstdint>

#include "absl/random/distributions.h"
#include "absl/strings/str_cat.h"
#include "wire/limits.h"

namespace fedmf::client {

v1::RegisterRequest MakeRegisterRequest(const ParticipantHost& host, const std::string& client_name,
                                        const std::string& enrollment_token) {
  v1::RegisterRequest request;
  request.set_protocol_version(wire::kProtocolVersion);
  request.set_client_name(client_name);
  request.set_enrollment_token(enrollment_token);
  request.set_signing_public_key(host.signing_public_key());
  for (uint32_t id : host.participant_ids()) request.add_participant_ids(id);
  // The host takes a CheckInLater (ParticipantHost::TakeCheckIn); a transport that does not
  // honour its delay still reconnects, on its own backoff.
  request.set_accepts_check_in(true);
  return request;
}

absl::Status ValidateRegisterResponse(const v1::RegisterResponse& response) {
  if (response.current_round() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("RegisterResponse: negative round ", response.current_round()));
  }
  if (response.session_token().empty() && !response.training_done()) {
    return absl::InvalidArgumentError("RegisterResponse: no session token");
  }
  return absl::OkStatus();
}

void EndTrainingFromRegistration(ParticipantHost& host, const v1::RegisterResponse& response) {
  v1::ServerMessage done;
  done.mutable_result()->set_round(response.current_round());
  done.mutable_result()->set_training_done(true);
  (void)host.Handle(done);  // a RoundResult is never answered
}

Backoff::Backoff(const BackoffOptions& options, absl::BitGenRef jitter, absl::Time now)
    : options_(options), jitter_(jitter), step_(options.initial), last_worked_(now) {}

void Backoff::StreamEnded(absl::Time opened, absl::Time now) {
  if (now - opened > kStreamWorkedAfter) Worked(now);
}

void Backoff::Worked(absl::Time now) {
  step_ = options_.initial;
  last_worked_ = now;
}

bool Backoff::ShouldGiveUp(absl::Time now) const {
  return now - last_worked_ > options_.give_up_after;
}

absl::Duration Backoff::NextWait() {
  const absl::Duration wait = step_ * absl::Uniform(jitter_, 0.8, 1.2);
  step_ = std::min(step_ * 2, options_.max);
  return wait;
}

}  // namespace fedmf::client
