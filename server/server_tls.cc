#include "server/server_tls.h"

#include <vector>

#include "absl/status/status.h"
#include "crypto/pem_file.h"

namespace fedmf::server {

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const ServerTls& tls) {
  if (tls.cert_file.empty() != tls.key_file.empty()) {
    return absl::InvalidArgumentError("--tls_cert and --tls_key go together");
  }
  if (!tls.enabled()) {
    if (tls.mutual()) {
      return absl::InvalidArgumentError(
          "--tls_client_ca (mutual TLS) needs the coordinator's own --tls_cert and --tls_key");
    }
    return grpc::InsecureServerCredentials();
  }
  absl::StatusOr<std::string> cert =
      crypto::ReadPemFile(tls.cert_file, crypto::PemKind::kCertificates);
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = crypto::ReadPemFile(tls.key_file, crypto::PemKind::kPrivateKey);
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions ssl(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  ssl.pem_key_cert_pairs.push_back({*std::move(key), *std::move(cert)});
  if (tls.mutual()) {
    absl::StatusOr<std::string> ca =
        crypto::ReadPemFile(tls.client_ca_file, crypto::PemKind::kCertificates);
    if (!ca.ok()) return ca.status();
    ssl.pem_root_certs = *std::move(ca);
    ssl.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(ssl);
}

std::string PeerIdentity(const grpc::AuthContext& context) {
  if (!context.IsPeerAuthenticated()) return std::string();
  const std::vector<grpc::string_ref> cn = context.FindPropertyValues("x509_common_name");
  if (cn.empty()) return std::string();
  return std::string(cn.front().data(), cn.front().size());
}

std::string PeerIdentity(const grpc::CallbackServerContext& context) {
  const std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  return auth != nullptr ? PeerIdentity(*auth) : std::string();
}

}  // namespace fedmf::server
