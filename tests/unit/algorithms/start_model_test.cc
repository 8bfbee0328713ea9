// Warm start (common/algorithms/start_model.h): a published model's item factors decoded from its
// plan, and dp-als and dpmf-rp runs started from them through the new-run registry.
#include "common/algorithms/start_model.h"

#include <memory>
#include <string>
#include <vector>

#include "common/algorithms/new_run.h"
#include "common/algorithms/options.h"
#include "common/algorithms/registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::algorithms {
namespace {

using ::testing::HasSubstr;

RunSettings Settings(uint64_t seed) {
  RunSettings run;
  run.num_users = 40;
  run.num_items = 30;
  run.rounds = 3;
  run.min_clients = 10;
  run.epsilon = 5;
  run.seed = seed;
  return run;
}

// A fresh run of `algorithm` with its default options and `overrides`.
absl::StatusOr<NewRun> Start(const std::string& algorithm, const RunSettings& run,
                             const std::vector<std::string>& overrides = {}) {
  absl::StatusOr<std::unique_ptr<google::protobuf::Message>> options =
      ResolveOptions(algorithm, "", overrides);
  if (!options.ok()) return options.status();
  return StartNewRun(algorithm, run, **options);
}

// The item factors the run's current plan gives its users (what a device scores with).
mf::FactorMatrix PlannedItemFactors(const Updater& updater) {
  absl::StatusOr<v1::RoundPlan> plan = updater.Plan();
  EXPECT_TRUE(plan.ok()) << plan.status();
  absl::StatusOr<mf::FactorMatrix> v = PublishedItemFactors(*plan);
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : mf::FactorMatrix();
}

TEST(StartModelTest, ARunStartsFromThePublishedItemFactorsInsteadOfItsRandomOnes) {
  for (const std::string algorithm : {"dpmf-rp", "dp-als"}) {
    SCOPED_TRACE(algorithm);
    absl::StatusOr<NewRun> earlier = Start(algorithm, Settings(3));
    ASSERT_TRUE(earlier.ok()) << earlier.status();
    const mf::FactorMatrix published = PlannedItemFactors(*earlier->updater);
    ASSERT_EQ(published.rows(), 30);

    RunSettings warm = Settings(8);
    warm.start_item_factors = published;
    absl::StatusOr<NewRun> started = Start(algorithm, warm);
    ASSERT_TRUE(started.ok()) << started.status();
    EXPECT_TRUE(PlannedItemFactors(*started->updater).isApprox(published));
    absl::StatusOr<NewRun> cold = Start(algorithm, Settings(8));
    ASSERT_TRUE(cold.ok()) << cold.status();
    EXPECT_FALSE(PlannedItemFactors(*cold->updater).isApprox(published));
  }
}

TEST(StartModelTest, AModelOfAnotherShapeIsRefusedNamingWhatToChange) {
  absl::StatusOr<NewRun> earlier = Start("dpmf-rp", Settings(3), {"rank=4"});
  ASSERT_TRUE(earlier.ok()) << earlier.status();
  RunSettings warm = Settings(3);
  warm.start_item_factors = PlannedItemFactors(*earlier->updater);
  for (const std::string algorithm : {"dpmf-rp", "dp-als"}) {
    const absl::Status status = Start(algorithm, warm, {"rank=6"}).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << algorithm;
    EXPECT_THAT(std::string(status.message()),
                HasSubstr("has 30 items x rank 4, this run needs 30 x 6"));
    EXPECT_THAT(std::string(status.message()), HasSubstr("rank=4"));
  }
  warm.start_item_factors->coeffRef(2, 1) = std::nan("");
  EXPECT_THAT(std::string(Start("dpmf-rp", warm, {"rank=4"}).status().message()),
              HasSubstr("non-finite"));
}

TEST(StartModelTest, APopularityModelHasNoItemFactorsToStartFrom) {
  RunSettings once = Settings(3);
  once.rounds = 1;
  once.min_clients = 0;
  absl::StatusOr<NewRun> popularity = Start("dp-popularity", once);
  ASSERT_TRUE(popularity.ok()) << popularity.status();
  absl::StatusOr<v1::RoundPlan> plan = popularity->updater->Plan();
  ASSERT_TRUE(plan.ok()) << plan.status();
  const absl::Status status = PublishedItemFactors(*plan).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("'dp-popularity' is not a factor model"));
  v1::RoundPlan damaged = *plan;
  damaged.set_payload("not a broadcast");
  EXPECT_FALSE(PublishedItemFactors(damaged).ok());
}

}  // namespace
}  // namespace fedmf::algorithms
