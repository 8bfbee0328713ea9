// The users one client process hosts, and the routing of coordinator messages to them: a round
// task builds the round's contributor once and starts every listed local participant; SecAgg
// messages go to the participant they name; a round result closes the round. Transport-free: it
// maps a fedmf.v1.ServerMessage to the ClientMessages to send back, so any transport (the gRPC
// stream, an in-process test, a mobile binding) can drive it. A host is one trust domain: it holds
// every hosted user's secrets anyway, so all of them sign SecAgg messages with the host's one
// Ed25519 key (registered as RegisterRequest.signing_public_key).
#ifndef FEDMF_CLIENT_PARTICIPANT_HOST_H_
#define FEDMF_CLIENT_PARTICIPANT_HOST_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/participant.h"
#include "common/algorithms/algorithm.h"
#include "common/data/ratings_dataset.h"
#include "crypto/ed25519.h"
#include "crypto/secagg/signing_directory.h"
#include "fedmf/v1/federation.pb.h"

namespace fedmf::client {

class ParticipantHost {
 public:
  // Hosts dense users `users` of `data` (participant id = user + 1). InvalidArgument for a user
  // outside the dataset or listed twice.
  static absl::StatusOr<std::unique_ptr<ParticipantHost>> Create(
      std::shared_ptr<const data::RatingsDataset> data, const std::vector<int32_t>& users);

  // The replies to one coordinator message. Errors (a task this host cannot run, a message for a
  // participant it does not host or of another round than the last task's) are returned as a Status
  // and change nothing else; a participant whose session rejects a message answers with its Abort
  // reply instead.
  absl::StatusOr<std::vector<v1::ClientMessage>> Handle(const v1::ServerMessage& message);

  std::vector<uint32_t> participant_ids() const;
  // The 32-byte Ed25519 public key the host's users sign with (fresh per host, from the CSPRNG).
  std::string signing_public_key() const;
  const Participant* Find(uint32_t id) const;
  // The model of the last round task (nullptr before the first), for local recommendations.
  const algorithms::Contributor* contributor() const { return contributor_.get(); }
  int64_t rounds_completed() const { return rounds_completed_; }
  bool training_done() const { return training_done_; }

 private:
  ParticipantHost(std::shared_ptr<const data::RatingsDataset> data,
                  crypto::Ed25519PrivateKey signing_key)
      : data_(std::move(data)), signing_key_(std::move(signing_key)) {}

  // The cohort's directory of a task with signatures; InvalidArgument if it is malformed or does
  // not list this host's own key for the users the task names.
  absl::StatusOr<std::shared_ptr<const secagg::SigningKeyDirectory>> TaskDirectory(
      const v1::RoundTask& task) const;

  absl::StatusOr<std::vector<v1::ClientMessage>> HandleTask(const v1::RoundTask& task);
  absl::StatusOr<std::vector<v1::ClientMessage>> HandleSecAgg(const v1::ServerToParticipant& m);
  void HandleResult(const v1::RoundResult& result);

  std::shared_ptr<const data::RatingsDataset> data_;
  crypto::Ed25519PrivateKey signing_key_;
  std::map<uint32_t, Participant> participants_;
  std::unique_ptr<algorithms::Contributor> contributor_;
  int64_t round_ = -1;  // of the last task
  int64_t rounds_completed_ = 0;
  bool training_done_ = false;
};

}  // namespace fedmf::client

#endif  // FEDMF_CLIENT_PARTICIPANT_HOST_H_
