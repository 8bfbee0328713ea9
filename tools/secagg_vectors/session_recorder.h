// Runs one real SecAgg session in process (fedmf's ClientSession and ServerSession, keys from the
// OS CSPRNG) and records what test vectors need: every message in the order it was sent, each
// client's exported state (its secrets) after each stage it took part in, its signing key and its
// input. A client can drop after its ShareKeys response, before its masked input is requested.
#ifndef FEDMF_TOOLS_SECAGG_VECTORS_SESSION_RECORDER_H_
#define FEDMF_TOOLS_SECAGG_VECTORS_SESSION_RECORDER_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "crypto/secagg/config.h"
#include "crypto/secagg/derivation.h"
#include "fedmf/v1/secagg.pb.h"

namespace fedmf::secagg_vectors {

// One protocol message as sent: between the server and client `client`, in either direction.
struct RecordedMessage {
  std::string stage;  // "AdvertiseKeys", "ShareKeys", ... (crypto/secagg/stages.h display names)
  bool from_server = false;
  uint32_t client = 0;
  fedmf::v1::secagg::ClientToServer client_message;  // when !from_server
  fedmf::v1::secagg::ServerToClient server_message;  // when from_server
};

struct RecordedClient {
  uint32_t id = 0;
  std::string signing_seed;        // Ed25519 seed (RFC 8032 secret key), 32 bytes
  std::string signing_public_key;  // 32 bytes
  std::vector<uint64_t> input;     // x_u, each < 2^b
  // ClientSession::Export after Start (keys, input and the self-mask secret b it committed to),
  // after the ShareKeys response and after the masked input (the last only for a client that sent
  // one).
  fedmf::v1::secagg::ClientSessionState after_advertise;
  fedmf::v1::secagg::ClientSessionState after_share_keys;
  fedmf::v1::secagg::ClientSessionState after_masked_input;
  bool sent_masked_input = false;
};

struct RecordedSession {
  secagg::SessionConfig config;
  secagg::SessionId session_id{};
  std::vector<RecordedClient> clients;  // ascending id
  std::vector<RecordedMessage> messages;
  std::vector<uint64_t> sum;       // ServerSession::result()
  std::vector<uint32_t> included;  // ServerSession::IncludedClients() (U3)
};

// Runs a session of `config` with clients `ids` (ascending), inputs uniform in [0, 2^b) from the
// CSPRNG; the clients in `drop_after_share_keys` never get their MaskedInputRequest (the server
// is told with MarkDropped). Any error of the session (a rejected message, an abort, a missing
// sum) is an error: the vectors are of a session that completed.
absl::StatusOr<RecordedSession> RecordSession(const secagg::SessionConfig& config,
                                              const std::vector<uint32_t>& ids,
                                              const std::set<uint32_t>& drop_after_share_keys);

}  // namespace fedmf::secagg_vectors

#endif  // FEDMF_TOOLS_SECAGG_VECTORS_SESSION_RECORDER_H_
