#include "crypto/openssl_util.h"

#include <openssl/err.h>
#include <openssl/evp.h>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::crypto::internal {
namespace {

using ::testing::HasSubstr;

TEST(OpenSslUtilTest, ErrorCarriesOpenSslReasonAndDrainsTheQueue) {
  // Fetching an algorithm that does not exist queues an error ("unsupported").
  EXPECT_EQ(EVP_CIPHER_fetch(nullptr, "NO-SUCH-CIPHER", nullptr), nullptr);
  ASSERT_NE(ERR_peek_error(), 0u);
  const absl::Status s = OpenSslError("fetching NO-SUCH-CIPHER");
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(s.message(), HasSubstr("fetching NO-SUCH-CIPHER failed: error:"));
  EXPECT_EQ(ERR_peek_error(), 0u);
}

TEST(OpenSslUtilTest, ErrorWithEmptyQueueSaysSo) {
  ClearOpenSslErrors();
  EXPECT_THAT(OpenSslError("x").message(), HasSubstr("no OpenSSL error reported"));
}

TEST(OpenSslUtilTest, CachedAlgorithmsAreAvailable) {
  ASSERT_NE(Aes256Gcm(), nullptr);
  ASSERT_NE(Aes256Ctr(), nullptr);
  ASSERT_NE(Hmac(), nullptr);
  EXPECT_EQ(Aes256Gcm(), Aes256Gcm());  // fetched once
  EXPECT_EQ(EVP_CIPHER_get_key_length(Aes256Ctr()), 32);
  EXPECT_EQ(EVP_CIPHER_get_iv_length(Aes256Gcm()), 12);
}

}  // namespace
}  // namespace fedmf::crypto::internal
