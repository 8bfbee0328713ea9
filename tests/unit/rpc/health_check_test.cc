#include "rpc/health_check.h"

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include <memory>

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace fedmf::rpc {
namespace {

// A server with gRPC's built-in health service (and a generic callback service, which it needs
// to be built at all), on a free loopback port.
class HealthCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::EnableDefaultHealthCheckService(true);
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterCallbackGenericService(&generic_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    ASSERT_NE(port_, 0);
    channel_ = grpc::CreateChannel("127.0.0.1:" + std::to_string(port_),
                                   grpc::InsecureChannelCredentials());
  }
  void TearDown() override { server_->Shutdown(); }

  grpc::CallbackGenericService generic_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
  std::shared_ptr<grpc::Channel> channel_;
};

TEST_F(HealthCheckTest, ServingServer) {
  absl::StatusOr<std::string> status = CheckHealth(channel_, "", absl::Seconds(5));
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(*status, "SERVING");
}

TEST_F(HealthCheckTest, NotServingServer) {
  server_->GetHealthCheckService()->SetServingStatus(false);
  absl::StatusOr<std::string> status = CheckHealth(channel_, "", absl::Seconds(5));
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(*status, "NOT_SERVING");
}

TEST_F(HealthCheckTest, UnknownServiceIsNotFound) {
  absl::StatusOr<std::string> status = CheckHealth(channel_, "no.such.Service", absl::Seconds(5));
  EXPECT_EQ(status.status().code(), absl::StatusCode::kNotFound) << status.status();
}

TEST_F(HealthCheckTest, NothingListeningIsUnavailable) {
  const std::string target = "127.0.0.1:" + std::to_string(port_);
  server_->Shutdown();
  absl::StatusOr<std::string> status = CheckHealth(
      grpc::CreateChannel(target, grpc::InsecureChannelCredentials()), "", absl::Seconds(5));
  EXPECT_EQ(status.status().code(), absl::StatusCode::kUnavailable) << status.status();
}

}  // namespace
}  // namespace fedmf::rpc
