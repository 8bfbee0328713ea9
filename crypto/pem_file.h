// Reads PEM files for TLS (certificates, CA bundles, private keys) and checks that OpenSSL can
// parse them, so a wrong path or a swapped file fails at startup with the file's name instead of
// as an opaque handshake error later.
#ifndef FEDMF_CRYPTO_PEM_FILE_H_
#define FEDMF_CRYPTO_PEM_FILE_H_

#include <string>

#include "absl/status/statusor.h"

namespace fedmf::crypto {

enum class PemKind { kCertificates, kPrivateKey };

// The file's text. NotFound / PermissionDenied when it cannot be read; InvalidArgument (naming
// the file) when it holds no certificate (kCertificates: one or more) or no private key.
absl::StatusOr<std::string> ReadPemFile(const std::string& path, PemKind kind);

}  // namespace fedmf::crypto

#endif  // FEDMF_CRYPTO_PEM_FILE_H_
