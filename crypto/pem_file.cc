#include "crypto/pem_file.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace fedmf::crypto {
namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};

// Number of certificates in `pem` (stops at the first block that is not one).
int CountCertificates(const std::string& pem) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (bio == nullptr) return 0;
  int count = 0;
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    X509_free(cert);
    ++count;
  }
  ERR_clear_error();  // the read that ended the loop leaves an error on the queue
  return count;
}

bool HasPrivateKey(const std::string& pem) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (bio == nullptr) return false;
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr);
  ERR_clear_error();
  if (key == nullptr) return false;
  EVP_PKEY_free(key);
  return true;
}

}  // namespace

absl::StatusOr<std::string> ReadPemFile(const std::string& path, PemKind kind) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat("error reading ", path));
  std::string text = content.str();
  if (kind == PemKind::kCertificates && CountCertificates(text) == 0) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": no PEM certificate in the file"));
  }
  if (kind == PemKind::kPrivateKey && !HasPrivateKey(text)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": no unencrypted PEM private key in the file"));
  }
  return text;
}

}  // namespace fedmf::crypto
