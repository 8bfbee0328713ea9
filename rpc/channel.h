// The one place a fedmf gRPC client (fedmf-client's stream and stream pool, `fedmf-coordinator
// status`) builds its channel to the coordinator: message limits and transport credentials, TLS
// (server verified against a CA, optionally a client certificate for mutual TLS) or plaintext;
// and how the clients read the coordinator's statuses.
#ifndef FEDMF_RPC_CHANNEL_H_
#define FEDMF_RPC_CHANNEL_H_

#include <grpcpp/grpcpp.h>

#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace fedmf::rpc {

// PEM file paths. An empty ca_file means plaintext (no TLS); cert_file and key_file go together
// (mutual TLS) and need ca_file.
struct ClientTls {
  std::string ca_file;      // CA that signed the coordinator's certificate
  std::string cert_file;    // this client's certificate (its identity for mTLS)
  std::string key_file;     // ... and its private key
  std::string server_name;  // name to verify in the coordinator's certificate (default: the host)

  bool enabled() const { return !ca_file.empty(); }
};

struct ChannelOptions {
  std::string target;  // host:port
  ClientTls tls;
  // A TCP connection of its own instead of sharing one with other channels to the same target.
  bool own_connection = false;
  // > 0: a keepalive ping this often, and the connection is dropped when one goes unanswered
  // for as long (the server must permit pings this frequent).
  absl::Duration keepalive = absl::ZeroDuration();
};

// Reads the PEM files; InvalidArgument for an inconsistent set of paths, NotFound (naming the
// file) for a file that cannot be read.
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeClientCredentials(
    const ClientTls& tls);

// A channel with fedmf's message limits (wire/limits.h) and the credentials of `options.tls`.
absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(const ChannelOptions& options);

// `target` with its addresses rotated to start from the (first mod N)-th, when it lists N > 1
// ("ipv4:A,B,C" -> "ipv4:B,C,A" for first = 1); any other target as it is. A channel to such a
// target connects to its first address that answers and, when that one is gone, to the next
// (pick_first): how the streams of one process spread over front replicas and move off a dead
// one (docs/scale-out.md).
std::string RotatedTarget(absl::string_view target, size_t first);

absl::Status FromGrpc(const grpc::Status& status);

// A status after which reconnecting cannot help (wrong token, revoked identity, bad users, ...),
// as opposed to the network or the coordinator being down.
bool IsRefusal(grpc::StatusCode code);

// True for an address (host:port, [v6]:port, host, unix:path) that stays on this machine:
// 127.0.0.0/8, ::1, localhost, a unix socket.
bool IsLoopbackAddress(absl::string_view address);

// Plaintext on a non-loopback address: logs event=warning and a loud line on stderr (rings and
// credentials then cross the network unencrypted). `role` names the side, e.g. "fedmf-client".
void WarnIfPlaintextOffLoopback(absl::string_view role, absl::string_view address, bool tls);

// The enrollment token both binaries default to, for loopback demos: it is public.
inline constexpr char kDemoEnrollmentToken[] = "fedmf-demo";

// A coordinator on a non-loopback address that admits clients by the public demo token (no mutual
// TLS identities): logs event=warning and a loud line on stderr, since anyone can then register.
void WarnIfDemoTokenOffLoopback(absl::string_view address, absl::string_view token,
                                bool mutual_tls);

}  // namespace fedmf::rpc

#endif  // FEDMF_RPC_CHANNEL_H_
