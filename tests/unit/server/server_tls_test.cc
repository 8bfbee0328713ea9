#include "server/server_tls.h"

#include "gtest/gtest.h"

namespace fedmf::server {
namespace {

ServerTls Tls(std::string cert, std::string key, std::string client_ca) {
  ServerTls tls;
  tls.cert_file = std::move(cert);
  tls.key_file = std::move(key);
  tls.client_ca_file = std::move(client_ca);
  return tls;
}

TEST(ServerTlsTest, PlaintextWithoutFiles) {
  const ServerTls tls;
  EXPECT_FALSE(tls.enabled());
  EXPECT_TRUE(MakeServerCredentials(tls).ok());
}

TEST(ServerTlsTest, RefusesInconsistentPaths) {
  EXPECT_EQ(MakeServerCredentials(Tls("c.pem", "", "")).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeServerCredentials(Tls("", "k.pem", "")).status().code(),
            absl::StatusCode::kInvalidArgument);
  const absl::Status mutual_only = MakeServerCredentials(Tls("", "", "ca.pem")).status();
  EXPECT_EQ(mutual_only.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(mutual_only.message().find("--tls_client_ca"), absl::string_view::npos);
}

TEST(ServerTlsTest, NamesAnUnreadableFile) {
  const absl::Status s =
      MakeServerCredentials(Tls("/nonexistent/server.pem", "/nonexistent/k", "")).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("/nonexistent/server.pem"), absl::string_view::npos);
}

}  // namespace
}  // namespace fedmf::server
