#include "crypto/pem_file.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace fedmf::crypto {
namespace {

std::string TempPath(const std::string& name) {
  return std::string(::testing::TempDir()) + "/pem_file_test_" + name;
}

std::string Write(const std::string& name, const std::string& text) {
  const std::string path = TempPath(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// A fresh Ed25519 key and a self-signed certificate for it, both as PEM.
void MakeKeyAndCert(std::string& key_pem, std::string& cert_pem) {
  EVP_PKEY* key = nullptr;
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr);
  ASSERT_EQ(EVP_PKEY_keygen_init(ctx), 1);
  ASSERT_EQ(EVP_PKEY_keygen(ctx, &key), 1);
  EVP_PKEY_CTX_free(ctx);
  X509* cert = X509_new();
  ASSERT_EQ(X509_set_version(cert, 2), 1);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), 0);
  X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("test"), -1, -1, 0);
  X509_set_issuer_name(cert, name);
  X509_set_pubkey(cert, key);
  ASSERT_GT(X509_sign(cert, key, nullptr), 0);
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  long size = BIO_get_mem_data(bio, &data);
  key_pem.assign(data, static_cast<size_t>(size));
  BIO_free(bio);
  bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, cert);
  size = BIO_get_mem_data(bio, &data);
  cert_pem.assign(data, static_cast<size_t>(size));
  BIO_free(bio);
  X509_free(cert);
  EVP_PKEY_free(key);
}

TEST(PemFileTest, ReadsACertificateBundleAndAKey) {
  std::string key, cert;
  MakeKeyAndCert(key, cert);
  const std::string bundle = Write("bundle.pem", cert + cert);
  EXPECT_EQ(ReadPemFile(bundle, PemKind::kCertificates).value(), cert + cert);
  const std::string key_path = Write("key.pem", key);
  EXPECT_EQ(ReadPemFile(key_path, PemKind::kPrivateKey).value(), key);
}

TEST(PemFileTest, RefusesAMissingFileAndTheWrongKindNamingTheFile) {
  EXPECT_EQ(ReadPemFile(TempPath("absent.pem"), PemKind::kCertificates).status().code(),
            absl::StatusCode::kNotFound);
  std::string key, cert;
  MakeKeyAndCert(key, cert);
  const std::string key_path = Write("only-key.pem", key);
  const absl::Status as_cert = ReadPemFile(key_path, PemKind::kCertificates).status();
  EXPECT_EQ(as_cert.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(as_cert.message().find(key_path), absl::string_view::npos) << as_cert;
  const std::string cert_path = Write("only-cert.pem", cert);
  EXPECT_EQ(ReadPemFile(cert_path, PemKind::kPrivateKey).status().code(),
            absl::StatusCode::kInvalidArgument);
  const std::string garbage = Write("garbage.pem", "-----BEGIN CERTIFICATE-----\nAAAA\n");
  EXPECT_EQ(ReadPemFile(garbage, PemKind::kCertificates).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace fedmf::crypto
