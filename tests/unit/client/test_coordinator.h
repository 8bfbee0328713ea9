// Test helper: a real coordinator over test_round.h's 40 users (cohort 10, n_min 6) serving the
// Federation service on a free loopback port, for the transports' tests.
#ifndef FEDMF_TESTS_UNIT_CLIENT_TEST_COORDINATOR_H_
#define FEDMF_TESTS_UNIT_CLIENT_TEST_COORDINATOR_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "server/coordinator.h"
#include "server/services.h"
#include "tests/unit/client/test_round.h"

namespace fedmf::client::test_util {

struct TestCoordinator {
  // `options` beyond the token, the 40 users and a 10 s stage timeout; by default the first
  // round waits for all 40.
  explicit TestCoordinator(int64_t rounds, server::CoordinatorOptions options = WaitForAll()) {
    options.enrollment_token = "token";
    options.num_users = 40;
    options.stage_timeout = absl::Seconds(10);
    coordinator = std::make_unique<server::Coordinator>(
        options,
        server::CoordinatorState{"dpmf-rp", SmallUpdater(), dp::PrivacyLedger::Create().value(), 1,
                                 rounds, server::FixedPopulation()});
    federation = std::make_unique<server::FederationService>(coordinator.get());
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(federation.get());
    server = builder.BuildAndStart();
  }
  ~TestCoordinator() {
    coordinator->Stop();
    server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  }
  std::string target() const { return "127.0.0.1:" + std::to_string(port); }

  static server::CoordinatorOptions WaitForAll() {
    server::CoordinatorOptions options;
    options.wait_for_users = 40;
    return options;
  }

  std::unique_ptr<server::Coordinator> coordinator;
  std::unique_ptr<server::FederationService> federation;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
};

}  // namespace fedmf::client::test_util

#endif  // FEDMF_TESTS_UNIT_CLIENT_TEST_COORDINATOR_H_
