#include "tools/sim/hosting.h"

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "client/party_spec.h"
#include "common/algorithms/registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::sim {
namespace {

using ::testing::HasSubstr;

const algorithms::AlgorithmDefinition& Algorithm(absl::string_view name) {
  return *algorithms::FindAlgorithm(name).value();
}

std::vector<client::PartySpec> Parties(absl::string_view flag) {
  return client::ParseParties(flag).value();
}

TEST(HostingTest, EveryAlgorithmRunsWithItsOwnHosting) {
  EXPECT_TRUE(CheckHosting(Algorithm("dpmf-rp"), {}, "").ok());
  EXPECT_TRUE(CheckHosting(Algorithm("hfl-sgdmf"), Parties("hfl:3"), "hfl:3").ok());
  EXPECT_TRUE(CheckHosting(Algorithm("vfl-sgdmf"), Parties("vfl:3"), "vfl:3").ok());
  EXPECT_TRUE(CheckHosting(Algorithm("vfl-sgdmf"), Parties("vfl-genre:3"), "vfl-genre:3").ok());
  for (absl::string_view parties : {"", "hfl:2", "vfl:2"}) {
    EXPECT_TRUE(
        CheckHosting(Algorithm("probe"), parties.empty() ? std::vector<client::PartySpec>()
                                                         : Parties(parties),
                     parties)
            .ok())
        << parties;
  }
}

TEST(HostingTest, RefusesAMismatchSayingWhatToUseInstead) {
  const absl::Status users = CheckHosting(Algorithm("vfl-sgdmf"), {}, "");
  EXPECT_EQ(users.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(users.message(),
              HasSubstr("--algorithm=vfl-sgdmf trains on VFL silo parties, not users: add "
                        "--parties=vfl:N or --parties=vfl-genre:N"));
  EXPECT_THAT(users.message(), HasSubstr("or use an algorithm for users: dp-als, "));
  const absl::Status parties = CheckHosting(Algorithm("dpmf-rp"), Parties("hfl:2"), "hfl:2");
  EXPECT_EQ(parties.message(),
            "--algorithm=dpmf-rp trains on users, not HFL silo parties (--parties=hfl:2): run it "
            "without --parties, or use an algorithm for HFL silo parties: hfl-sgdmf, probe");
  EXPECT_THAT(CheckHosting(Algorithm("hfl-sgdmf"), Parties("vfl:2"), "vfl:2").message(),
              HasSubstr("trains on HFL silo parties, not VFL silo parties (--parties=vfl:2): add "
                        "--parties=hfl:N"));
}

TEST(HostingTest, PartiesMustBeTheRoundsContributors) {
  v1::RoundPlan plan;
  plan.set_algorithm("vfl-sgdmf");
  plan.set_min_contributors(3);
  plan.set_max_contributors(3);
  EXPECT_TRUE(CheckPartyCount(plan, Parties("vfl:3"), "vfl:3").ok());
  EXPECT_TRUE(CheckPartyCount(plan, {}, "").ok());
  EXPECT_EQ(CheckPartyCount(plan, Parties("vfl:2"), "vfl:2").message(),
            "--parties=vfl:2 hosts 2 parties but every round of --algorithm=vfl-sgdmf sums the "
            "contributions of 3 (the run's number of parties, e.g. --set parties=N of vfl-sgdmf "
            "or hfl-sgdmf)");
}

}  // namespace
}  // namespace fedmf::sim
