#include "rpc/channel.h"

#include <cstdio>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/util/event_log.h"
#include "crypto/pem_file.h"
#include "wire/limits.h"

namespace fedmf::rpc {

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeClientCredentials(
    const ClientTls& tls) {
  const bool has_cert = !tls.cert_file.empty(), has_key = !tls.key_file.empty();
  if (has_cert != has_key) {
    return absl::InvalidArgumentError("--tls_cert and --tls_key go together (mutual TLS)");
  }
  if (!tls.enabled()) {
    if (has_cert || !tls.server_name.empty()) {
      return absl::InvalidArgumentError(
          "--tls_cert, --tls_key and --tls_server_name need --tls_ca (the CA of the "
          "coordinator's certificate)");
    }
    return grpc::InsecureChannelCredentials();
  }
  grpc::SslCredentialsOptions ssl;
  absl::StatusOr<std::string> ca = crypto::ReadPemFile(tls.ca_file, crypto::PemKind::kCertificates);
  if (!ca.ok()) return ca.status();
  ssl.pem_root_certs = *std::move(ca);
  if (has_cert) {
    absl::StatusOr<std::string> cert =
        crypto::ReadPemFile(tls.cert_file, crypto::PemKind::kCertificates);
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key =
        crypto::ReadPemFile(tls.key_file, crypto::PemKind::kPrivateKey);
    if (!key.ok()) return key.status();
    ssl.pem_cert_chain = *std::move(cert);
    ssl.pem_private_key = *std::move(key);
  }
  return grpc::SslCredentials(ssl);
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(const ChannelOptions& options) {
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      MakeClientCredentials(options.tls);
  if (!credentials.ok()) return credentials.status();
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(wire::kMaxMessageBytes);
  args.SetMaxSendMessageSize(wire::kMaxMessageBytes);
  // Its own subchannel pool: a separate TCP connection per channel.
  if (options.own_connection) args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  if (options.keepalive > absl::ZeroDuration()) {
    const auto ms = static_cast<int>(absl::ToInt64Milliseconds(options.keepalive));
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, ms);
    args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, ms);
    args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
    args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  }
  if (!options.tls.server_name.empty()) args.SetSslTargetNameOverride(options.tls.server_name);
  return grpc::CreateCustomChannel(options.target, *credentials, args);
}

std::string RotatedTarget(absl::string_view target, size_t first) {
  absl::string_view list = target;
  if (!absl::ConsumePrefix(&list, "ipv4:")) return std::string(target);
  const std::vector<absl::string_view> addresses = absl::StrSplit(list, ',');
  if (addresses.size() < 2) return std::string(target);
  std::vector<absl::string_view> rotated;
  for (size_t i = 0; i < addresses.size(); ++i) {
    rotated.push_back(addresses[(first + i) % addresses.size()]);
  }
  return absl::StrCat("ipv4:", absl::StrJoin(rotated, ","));
}

absl::Status FromGrpc(const grpc::Status& status) {
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

bool IsRefusal(grpc::StatusCode code) {
  return code == grpc::StatusCode::UNAUTHENTICATED || code == grpc::StatusCode::PERMISSION_DENIED ||
         code == grpc::StatusCode::INVALID_ARGUMENT ||
         code == grpc::StatusCode::FAILED_PRECONDITION;
}

bool IsLoopbackAddress(absl::string_view address) {
  if (absl::StartsWith(address, "unix:") || absl::StartsWith(address, "unix-abstract:"))
    return true;
  absl::ConsumePrefix(&address, "dns:///");
  absl::ConsumePrefix(&address, "ipv4:");
  absl::ConsumePrefix(&address, "ipv6:");
  absl::string_view host = address;
  if (absl::ConsumePrefix(&host, "[")) {  // [v6]:port
    host = host.substr(0, host.find(']'));
  } else if (const size_t colon = host.rfind(':');
             colon != absl::string_view::npos && host.find(':') == colon) {  // host:port
    host = host.substr(0, colon);
  }
  return host == "localhost" || host == "::1" || absl::StartsWith(host, "127.");
}

void WarnIfPlaintextOffLoopback(absl::string_view role, absl::string_view address, bool tls) {
  if (tls || IsLoopbackAddress(address)) return;
  EventLine("warning")
      .Add("tls", "off")
      .Add("address", address)
      .Add("effect", "plaintext gRPC on a network address: tokens and updates are readable");
  std::fprintf(stderr,
               "%.*s: WARNING: NO TLS on %.*s, which is not a loopback address: enrollment "
               "tokens, keys and model updates cross the network in plaintext. Use --tls_* "
               "(docs/deployment.md).\n",
               static_cast<int>(role.size()), role.data(), static_cast<int>(address.size()),
               address.data());
}

void WarnIfDemoTokenOffLoopback(absl::string_view address, absl::string_view token,
                                bool mutual_tls) {
  if (mutual_tls || token != kDemoEnrollmentToken || IsLoopbackAddress(address)) return;
  EventLine("warning")
      .Add("enrollment_token", "demo-default")
      .Add("address", address)
      .Add("effect", "the public default token admits anyone who can reach the address");
  std::fprintf(stderr,
               "fedmf-coordinator: WARNING: the enrollment token is the public default '%s' on "
               "%.*s: anyone who reaches it can register users. Set --enrollment_token or use "
               "mutual TLS (docs/deployment.md).\n",
               kDemoEnrollmentToken, static_cast<int>(address.size()), address.data());
}

}  // namespace fedmf::rpc
