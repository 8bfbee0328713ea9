// Test helper: runs one SecAgg session in process (n ClientSessions and a ServerSession) by
// passing messages, with clients dropping out at chosen points, optional message tampering and
// the server's view recorded. Client work runs on `threads` threads (the sessions are
// independent); the server is driven from one thread.
#ifndef FEDMF_TESTS_UNIT_CRYPTO_SECAGG_DRIVER_H_
#define FEDMF_TESTS_UNIT_CRYPTO_SECAGG_DRIVER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "crypto/secagg/client_session.h"
#include "crypto/secagg/config.h"
#include "crypto/secagg/server_session.h"
#include "crypto/secagg/signing_directory.h"

namespace fedmf::secagg::test_util {

// A session on the complete graph under `context`: n clients, threshold t, `bits`-bit sums of d
// coordinates, no signatures.
inline SessionConfig CompleteGraph(std::string context, int n, int t, int bits, size_t d) {
  SessionConfig c;
  c.context = std::move(context);
  c.num_clients = n;
  c.threshold = t;
  c.bits = bits;
  c.length = d;
  return c;
}

// OK iff `server` accepted the message; InvalidArgument with the drop reason when it rejected it
// (answering with an Abort), its own error otherwise.
inline absl::Status Accepted(ServerSession& server, uint32_t id,
                             const fedmf::v1::secagg::ClientToServer& message) {
  absl::StatusOr<std::vector<ServerMessage>> answer = server.HandleMessage(id, message);
  if (!answer.ok()) return answer.status();
  if (!answer->empty()) return absl::InvalidArgumentError(server.DropReason(id));
  return absl::OkStatus();
}

// Where a client stops answering: it never sends the message of that stage (nor later ones).
enum class DropPoint {
  kNever,
  kAdvertise,         // sends nothing
  kShareKeys,         // advertised, never shares keys
  kMaskedInput,       // shared keys, never sends its masked input
  kConsistencyCheck,  // sent its masked input, never signs
  kUnmasking,         // never answers the unmasking request
};

// GoogleTest prints a parameter with this (test names stay readable and the same in every build).
inline void PrintTo(DropPoint point, std::ostream* os) {
  constexpr const char* kNames[] = {"Never",       "Advertise",        "ShareKeys",
                                    "MaskedInput", "ConsistencyCheck", "Unmasking"};
  *os << kNames[static_cast<int>(point)];
}

struct DriverOptions {
  SessionConfig config;
  std::vector<uint32_t> ids;  // empty: 1..n; else n distinct ids
  uint64_t input_seed = 1;    // inputs are uniform in [0, 2^b) from mt19937_64(input_seed)
  std::map<uint32_t, std::vector<uint64_t>> fixed_inputs;  // overrides for some clients
  std::map<uint32_t, DropPoint> drops;
  // A dropped client is reported with MarkDropped if true, else left to miss the deadline.
  bool report_drops = true;
  int threads = 1;
  int unmasking_threads = 0;  // the server's (ServerSession::set_unmasking_threads); 0: default
  // Messages of a stage are handled and answered in batches of this many clients (0: all at
  // once), which bounds the replies held in memory (64 KiB per masked input at d = 2^14).
  size_t batch = 0;
  // Called on every server message before delivery (may modify it).
  std::function<void(uint32_t client, fedmf::v1::secagg::ServerToClient&)> tamper_server;
  // Called on every client message before the server sees it (may modify it); also a way to
  // record the server's view.
  std::function<void(uint32_t client, fedmf::v1::secagg::ClientToServer&)> tamper_client;
  // Keep the whole transcript and every input in DriverResult::transcript.
  bool record = false;
};

// Everything a session's server side exchanged (after tampering), in order, and the inputs.
struct Transcript {
  std::vector<std::pair<uint32_t, fedmf::v1::secagg::ClientToServer>> received;
  // Including the messages to clients that stopped answering at that stage (a front relays them).
  std::vector<std::pair<uint32_t, fedmf::v1::secagg::ServerToClient>> sent;
  std::map<uint32_t, std::vector<uint64_t>> inputs;  // x_u of every client
};

struct DriverResult {
  absl::Status status;             // the server's status (kAborted with the reason) or setup errors
  std::vector<uint64_t> sum;       // the server's result when OK
  std::vector<uint64_t> expected;  // sum mod 2^b of the inputs of the included clients
  std::vector<uint32_t> included;  // clients whose input is in the sum
  std::vector<uint32_t> sent_masked_input;  // clients that sent a masked input (per the drops)
  std::map<uint32_t, std::string> client_aborts;  // client id -> its abort reason
  int completed_clients = 0;
  bool complete_graph = true;         // the server's graph (when it got that far)
  std::vector<double> close_seconds;  // wall time of each ServerSession::CloseStage call
  std::vector<ServerSession::Misbehaviour> misbehaviour;  // the server's
  Transcript transcript;                                  // with DriverOptions::record
};

DriverResult RunSession(const DriverOptions& options);

// A server and clients 1..n stepped stage by stage, for tests that tamper with one message.
class SessionHarness {
 public:
  // Creates the sessions (inputs: client i sends the constant vector i, except the clients in
  // `without_input`); Start()s every client and delivers the advertisements. Check status().
  explicit SessionHarness(const SessionConfig& config, std::vector<uint32_t> without_input = {});

  const absl::Status& status() const { return status_; }
  // Closes stages (delivering everything in between) until the server enters `target`, and
  // returns the server's messages of that stage, undelivered, by client id.
  std::map<uint32_t, fedmf::v1::secagg::ServerToClient> AdvanceTo(ServerStage target);
  // Delivers `messages` to their clients and the replies to the server.
  void Deliver(const std::map<uint32_t, fedmf::v1::secagg::ServerToClient>& messages);

  // Replaces client `id` by a session restored from its exported state, serialized and parsed
  // again as an app would store it (same signing key and directory).
  absl::Status RestoreClient(uint32_t id);
  // The same key and directory Restore needs, for tests that restore a state by hand.
  absl::StatusOr<ClientIdentity> Identity(uint32_t id) const;

  ClientSession& client(uint32_t id) { return *clients_.at(id); }
  ServerSession& server() { return *server_; }
  std::shared_ptr<MapSigningKeyDirectory> directory() { return directory_; }
  // The client's last reply (for replaying it to the server in server tests).
  const fedmf::v1::secagg::ClientToServer& last_reply(uint32_t id) { return replies_.at(id); }

 private:
  absl::Status status_;
  std::shared_ptr<MapSigningKeyDirectory> directory_;
  std::map<uint32_t, std::unique_ptr<ClientSession>> clients_;
  std::map<uint32_t, crypto::SecretBytes> signing_seeds_;  // with signatures
  std::unique_ptr<ServerSession> server_;
  std::map<uint32_t, fedmf::v1::secagg::ClientToServer> replies_;
};

}  // namespace fedmf::secagg::test_util

#endif  // FEDMF_TESTS_UNIT_CRYPTO_SECAGG_DRIVER_H_
