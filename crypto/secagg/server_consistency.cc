// Server round 3 (ConsistencyCheck, Bonawitz et al.'s active-security variant): collect every
// survivor's signature of (session id, U3); the unmasking requests carry all of them, so that a
// client reveals shares only for a survivor list that at least t clients signed.
#include "absl/strings/str_format.h"
#include "crypto/secagg/server_session.h"
#include "crypto/secagg/vector_codec.h"

namespace fedmf::secagg {

using fedmf::v1::secagg::ConsistencyCheckResponse;

absl::Status ServerSession::AcceptConsistencyCheck(Client& c, const ConsistencyCheckResponse& m) {
  const std::optional<crypto::Ed25519PublicKey> verifier = directory_->Find(c.id);
  if (!verifier.has_value()) {
    return absl::InvalidArgumentError("not in the signing key directory");
  }
  if (absl::Status s =
          verifier->Verify(SurvivorListMessage(session_id_, survivors_), AsBytes(m.signature()));
      !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("survivor list signature does not verify (%s)", s.message()));
  }
  c.survivor_signature = m.signature();
  c.signed_survivors = true;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<ServerMessage>> ServerSession::CloseConsistencyCheck() {
  if (absl::Status s = CheckReconstructable(&Client::signed_survivors); !s.ok()) return s;
  stage_ = ServerStage::kUnmasking;
  return UnmaskingRequests(&Client::signed_survivors);
}

}  // namespace fedmf::secagg
