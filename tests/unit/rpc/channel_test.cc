#include "rpc/channel.h"

#include "gtest/gtest.h"

namespace fedmf::rpc {
namespace {

TEST(ChannelTest, LoopbackAddresses) {
  EXPECT_TRUE(IsLoopbackAddress("127.0.0.1:50051"));
  EXPECT_TRUE(IsLoopbackAddress("127.3.4.5:1"));
  EXPECT_TRUE(IsLoopbackAddress("localhost:50051"));
  EXPECT_TRUE(IsLoopbackAddress("localhost"));
  EXPECT_TRUE(IsLoopbackAddress("[::1]:50051"));
  EXPECT_TRUE(IsLoopbackAddress("ipv4:127.0.0.1:9"));
  EXPECT_TRUE(IsLoopbackAddress("dns:///localhost:9"));
  EXPECT_TRUE(IsLoopbackAddress("unix:/tmp/fedmf.sock"));
  EXPECT_FALSE(IsLoopbackAddress("0.0.0.0:50051"));
  EXPECT_FALSE(IsLoopbackAddress("[::]:50051"));
  EXPECT_FALSE(IsLoopbackAddress("10.77.0.1:50051"));
  EXPECT_FALSE(IsLoopbackAddress("coordinator:50051"));
  EXPECT_FALSE(IsLoopbackAddress("128.0.0.1:50051"));
  EXPECT_FALSE(IsLoopbackAddress("localhost.example.org:50051"));
}

// Only the public demo token on a network address without mutual TLS is worth a warning.
TEST(ChannelTest, WarnsOfTheDemoTokenOnlyOffLoopbackWithoutIdentities) {
  const auto warning = [](absl::string_view address, absl::string_view token, bool mutual) {
    ::testing::internal::CaptureStderr();
    WarnIfDemoTokenOffLoopback(address, token, mutual);
    return ::testing::internal::GetCapturedStderr();
  };
  EXPECT_NE(warning("0.0.0.0:50051", kDemoEnrollmentToken, false).find("WARNING"),
            std::string::npos);
  EXPECT_EQ(warning("127.0.0.1:50051", kDemoEnrollmentToken, false), "");
  EXPECT_EQ(warning("0.0.0.0:50051", "a-secret", false), "");
  EXPECT_EQ(warning("0.0.0.0:50051", kDemoEnrollmentToken, true), "");
}

ClientTls Tls(std::string ca, std::string cert, std::string key, std::string server_name = "") {
  ClientTls tls;
  tls.ca_file = std::move(ca);
  tls.cert_file = std::move(cert);
  tls.key_file = std::move(key);
  tls.server_name = std::move(server_name);
  return tls;
}

// A target of several addresses starts from the first-th, cyclically; others are left alone.
TEST(ChannelTest, RotatesATargetOfSeveralAddresses) {
  EXPECT_EQ(RotatedTarget("ipv4:10.0.0.1:1,10.0.0.2:2,10.0.0.3:3", 0),
            "ipv4:10.0.0.1:1,10.0.0.2:2,10.0.0.3:3");
  EXPECT_EQ(RotatedTarget("ipv4:10.0.0.1:1,10.0.0.2:2,10.0.0.3:3", 1),
            "ipv4:10.0.0.2:2,10.0.0.3:3,10.0.0.1:1");
  EXPECT_EQ(RotatedTarget("ipv4:10.0.0.1:1,10.0.0.2:2,10.0.0.3:3", 5),
            "ipv4:10.0.0.3:3,10.0.0.1:1,10.0.0.2:2");
  EXPECT_EQ(RotatedTarget("ipv4:10.0.0.1:1", 3), "ipv4:10.0.0.1:1");
  EXPECT_EQ(RotatedTarget("fedmf-coordinator:50051", 2), "fedmf-coordinator:50051");
}

TEST(ChannelTest, PlaintextWithoutCa) {
  EXPECT_TRUE(MakeClientCredentials(ClientTls()).ok());
  ChannelOptions options;
  options.target = "127.0.0.1:1";
  EXPECT_TRUE(MakeChannel(options).ok());
}

TEST(ChannelTest, RefusesInconsistentTlsSettings) {
  // A client certificate without the CA to check the coordinator with.
  EXPECT_EQ(MakeClientCredentials(Tls("", "c.pem", "k.pem")).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeClientCredentials(Tls("", "", "", "coordinator")).status().code(),
            absl::StatusCode::kInvalidArgument);
  // A certificate without its key.
  EXPECT_EQ(MakeClientCredentials(Tls("ca.pem", "c.pem", "")).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ChannelTest, NamesAnUnreadableFile) {
  ChannelOptions options;
  options.target = "127.0.0.1:1";
  options.tls = Tls("/nonexistent/ca.pem", "", "");
  const absl::Status s = MakeChannel(options).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("/nonexistent/ca.pem"), absl::string_view::npos);
}

TEST(ChannelTest, RefusalsEndTheClientOthersAreRetried) {
  EXPECT_TRUE(IsRefusal(grpc::StatusCode::UNAUTHENTICATED));      // wrong token
  EXPECT_TRUE(IsRefusal(grpc::StatusCode::PERMISSION_DENIED));    // revoked identity
  EXPECT_TRUE(IsRefusal(grpc::StatusCode::INVALID_ARGUMENT));     // bad users
  EXPECT_TRUE(IsRefusal(grpc::StatusCode::FAILED_PRECONDITION));  // protocol misuse
  EXPECT_FALSE(IsRefusal(grpc::StatusCode::UNAVAILABLE));         // down, or TLS handshake failed
  EXPECT_FALSE(IsRefusal(grpc::StatusCode::ALREADY_EXISTS));      // the old stream still lives
  EXPECT_FALSE(IsRefusal(grpc::StatusCode::DEADLINE_EXCEEDED));
  const absl::Status s = FromGrpc(grpc::Status(grpc::StatusCode::PERMISSION_DENIED, "revoked"));
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(s.message(), "revoked");
}

}  // namespace
}  // namespace fedmf::rpc
