// SessionConfig validation (one case per rule) and the digest that binds every field.
#include <functional>
#include <vector>

#include "crypto/secagg/config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::secagg {
namespace {

using ::testing::HasSubstr;

SessionConfig Valid() {
  SessionConfig c;
  c.context = "round-1";
  c.num_clients = 10;
  c.threshold = 6;
  c.bits = 32;
  c.length = 100;
  return c;
}

struct Case {
  std::function<void(SessionConfig&)> change;
  const char* reason;
};

TEST(SecAggConfigTest, EachRuleRejectsWithItsReason) {
  const std::vector<Case> cases = {
      {[](SessionConfig& c) { c.num_clients = 1; }, "num_clients=1"},
      {[](SessionConfig& c) { c.threshold = 1; }, "threshold=1"},
      {[](SessionConfig& c) { c.threshold = 11; }, "threshold=11"},
      {[](SessionConfig& c) { c.bits = 0; }, "bits=0"},
      {[](SessionConfig& c) { c.bits = 63; }, "bits=63"},
      {[](SessionConfig& c) { c.length = 0; }, "length=0"},
      {[](SessionConfig& c) { c.context = std::string(2000, 'x'); }, "context is 2000 bytes"},
      {[](SessionConfig& c) { c.degree = 4; }, "degree=4 given for the complete graph"},
      {[](SessionConfig& c) {
         c.graph = GraphKind::kHarary;
         c.degree = 3;
       },
       "Harary degree=3 must be even"},
      {[](SessionConfig& c) {
         c.graph = GraphKind::kHarary;
         c.degree = 4;
       },
       "threshold=6 exceeds the closed neighborhood size degree+1=5"},
      {[](SessionConfig& c) { c.consistency_check = true; }, "needs signatures"},
      {[](SessionConfig& c) {
         c.graph = GraphKind::kHarary;
         c.degree = 6;
         c.signatures = true;
         c.consistency_check = true;
       },
       "only defined for the complete graph"},
  };
  EXPECT_TRUE(ValidateConfig(Valid()).ok());
  for (const Case& c : cases) {
    SessionConfig config = Valid();
    c.change(config);
    const absl::Status s = ValidateConfig(config);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << c.reason;
    EXPECT_THAT(s.message(), HasSubstr(c.reason));
  }
}

TEST(SecAggConfigTest, DigestChangesWithEveryField) {
  const std::vector<std::function<void(SessionConfig&)>> changes = {
      [](SessionConfig& c) { c.context = "round-2"; },
      [](SessionConfig& c) { c.num_clients = 11; },
      [](SessionConfig& c) { c.threshold = 7; },
      [](SessionConfig& c) { c.bits = 31; },
      [](SessionConfig& c) { c.length = 101; },
      [](SessionConfig& c) {
        c.graph = GraphKind::kHarary;
        c.degree = 6;
      },
      [](SessionConfig& c) { c.signatures = true; },
      [](SessionConfig& c) {
        c.signatures = true;
        c.consistency_check = true;
      },
  };
  const std::array<uint8_t, 32> base = ConfigDigest(Valid()).value();
  EXPECT_EQ(ConfigDigest(Valid()).value(), base);
  for (size_t i = 0; i < changes.size(); ++i) {
    SessionConfig c = Valid();
    changes[i](c);
    EXPECT_NE(ConfigDigest(c).value(), base) << i;
  }
}

}  // namespace
}  // namespace fedmf::secagg
