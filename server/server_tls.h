// Transport security of the coordinator's port: its TLS credentials (certificate and key, and with
// a client CA, mutual TLS that refuses clients without a certificate that CA signed) and the
// identity a verified client certificate carries.
#ifndef FEDMF_SERVER_SERVER_TLS_H_
#define FEDMF_SERVER_SERVER_TLS_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace fedmf::server {

// PEM file paths; all empty: plaintext.
struct ServerTls {
  std::string cert_file;       // the coordinator's certificate chain
  std::string key_file;        // ... and its private key
  std::string client_ca_file;  // set: mutual TLS, clients need a certificate this CA signed

  bool enabled() const { return !cert_file.empty(); }
  bool mutual() const { return !client_ca_file.empty(); }
};

// InvalidArgument for an inconsistent set of paths (key without certificate, client CA without
// TLS); the PEM readers' statuses (crypto/pem_file.h) for unreadable files.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const ServerTls& tls);

// The client's identity: the common name (CN) of its verified certificate; empty without mutual
// TLS. gRPC sets the x509 properties only after the chain verified against the client CA.
std::string PeerIdentity(const grpc::AuthContext& context);
// ... of a call's peer.
std::string PeerIdentity(const grpc::CallbackServerContext& context);

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_SERVER_TLS_H_
