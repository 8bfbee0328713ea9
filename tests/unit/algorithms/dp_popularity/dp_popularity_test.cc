#include "common/algorithms/dp_popularity/dp_popularity.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/algorithms/dp_popularity/contributor.h"
#include "common/algorithms/dp_popularity/updater.h"
#include "common/algorithms/new_run.h"
#include "common/dp/rdp_ddg.h"
#include "common/dp/rng.h"
#include "gtest/gtest.h"
#include "tests/unit/common/dp_test_stats.h"

namespace fedmf::algorithms::dp_popularity {
namespace {

using dp::testing::ComputeMoments;
using dp::testing::FrequencySe;
using dp::testing::kSigmas;
using dp::testing::ModularSum;

constexpr int kItems = 20;
constexpr int kUsers = 50;

v1::DpPopularityConfig NoisyConfig() {
  v1::DpPopularityConfig c;
  c.set_num_items(kItems);
  c.set_num_users(kUsers);
  c.set_cohort_size(kUsers);
  c.set_min_contributors(kUsers);
  c.set_max_items(3);
  c.set_noise(true);
  c.set_epsilon(2);
  c.set_delta(1e-5);
  c.set_scale(4);
  c.set_wrap_probability(1e-9);
  return c;
}

// User u rated items u mod 20, (u + 1) mod 20 and, for odd u, (u + 7) mod 20: at most 3, so the
// cap c = 3 samples nothing and the true count of every item is known.
std::vector<std::vector<int32_t>> UserItems() {
  std::vector<std::vector<int32_t>> items(kUsers);
  for (int u = 0; u < kUsers; ++u) {
    items[u] = {u % kItems, (u + 1) % kItems};
    if (u % 2 == 1 && (u + 7) % kItems != (u + 1) % kItems) items[u].push_back((u + 7) % kItems);
    std::sort(items[u].begin(), items[u].end());
  }
  return items;
}

// Users' rows (rating 4 everywhere) viewing the items and ratings this owns.
struct Rows {
  std::vector<std::vector<int32_t>> items;
  std::vector<std::vector<float>> ratings;
  std::vector<data::RatingRow> rows;
  explicit Rows(std::vector<std::vector<int32_t>> user_items)
      : items(std::move(user_items)), ratings(items.size()) {
    for (size_t u = 0; u < items.size(); ++u) {
      ratings[u].assign(items[u].size(), 4.0f);
      rows.push_back({.indices = items[u], .ratings = ratings[u], .timestamps = {}});
    }
  }
};

// Every user contributes once; the coordinator's sum decoded by a fresh copy of `updater`.
Eigen::VectorXd OneCount(const DpPopularityUpdater& updater, const Contributor& contributor,
                         const Rows& rows, int bits, dp::Rng& rng) {
  std::vector<std::vector<uint64_t>> vectors;
  for (const data::RatingRow& row : rows.rows) {
    Contribution c = contributor.Contribute(LocalData::User(row), "", rng).value();
    vectors.push_back(c.vector.Densify(kItems).value());
  }
  std::unique_ptr<DpPopularityUpdater> copy =
      DpPopularityUpdater::Restore(updater.SerializeState().value()).value();
  std::vector<uint32_t> ids(kUsers);
  for (int u = 0; u < kUsers; ++u) ids[u] = static_cast<uint32_t>(u + 1);
  EXPECT_TRUE(copy->ApplySum(ModularSum(vectors, bits), ids).ok());
  const v1::DpPopularityBroadcast model = [&] {
    v1::DpPopularityBroadcast b;
    b.ParseFromString(copy->Plan().value().payload());
    return b;
  }();
  return Eigen::Map<const Eigen::VectorXd>(model.counts().data(), model.counts_size());
}

// The count's noise is the one its ledger entry declares: the entry's sigma (noise_std) and
// sensitivity give back its RDP by KLS's bound, and 400 counts of users whose items are known
// have error mean 0 and variance n v / gamma^2 = sigma^2 (v = (gamma sigma)^2 / n_min, n = n_min;
// Var N_Z(0, v) = v to 1e-80 at these v > 10). Pooled over the 20 items (independent noise):
// 8000 errors, checked within 5 CLT standard errors.
TEST(DpPopularityTest, CountNoiseMatchesItsLedgerEntry) {
  std::unique_ptr<DpPopularityUpdater> updater = DpPopularityUpdater::Create(NoisyConfig()).value();
  const std::vector<double> orders = dp::DefaultOrders();
  const dp::LedgerEntry entry = updater->RoundPrivacy(kUsers, orders).value().value();
  EXPECT_EQ(entry.mechanism, "ddg");
  EXPECT_EQ(entry.unit, dp::PrivacyUnit::kUser);
  EXPECT_EQ(entry.n_min, kUsers);
  ASSERT_EQ(entry.params[0].first, "noise_std");
  const double sigma = entry.params[0].second;
  ASSERT_EQ(entry.params[3].first, "l2_sensitivity");
  EXPECT_DOUBLE_EQ(entry.params[3].second, 4 * std::sqrt(6.0));  // gamma sqrt(2c)
  const dp::RdpCurve by_hand = dp::DdgCurve({.l2_sensitivity = 4 * std::sqrt(6.0),
                                             .l1_sensitivity = 2 * 4 * 3,
                                             .per_client_variance = 16 * sigma * sigma / kUsers,
                                             .n_min = kUsers,
                                             .dim = kItems},
                                            1, orders)
                                   .value();
  EXPECT_EQ(entry.rdp, by_hand.values());
  EXPECT_TRUE(dp::WithinBudget(by_hand, dp::PrivacyBudget::ApproxDp(2, 1e-5)).value());

  const v1::RoundPlan plan = updater->Plan().value();
  std::unique_ptr<DpPopularityContributor> contributor =
      DpPopularityContributor::Create(plan).value();
  const std::vector<std::vector<int32_t>> items = UserItems();
  const Rows rows(items);
  Eigen::VectorXd truth = Eigen::VectorXd::Zero(kItems);
  for (const auto& user : items) {
    for (int32_t j : user) truth[j] += 1;
  }
  dp::Rng rng(11);
  std::vector<double> errors;
  constexpr int kRepeats = 400;
  for (int r = 0; r < kRepeats; ++r) {
    const Eigen::VectorXd counts =
        OneCount(*updater, *contributor, rows, static_cast<int>(plan.bits()), rng);
    for (int j = 0; j < kItems; ++j) errors.push_back(counts[j] - truth[j]);
  }
  const dp::testing::Moments m = ComputeMoments(errors);
  EXPECT_NEAR(m.mean, 0, kSigmas * sigma / std::sqrt(static_cast<double>(errors.size())));
  EXPECT_NEAR(m.variance, sigma * sigma, kSigmas * m.variance_se);
}

// A user with 5 rated items and c = 2 counts exactly 2 of them, each with probability 2/5
// (without noise the vector is the indicator itself).
TEST(DpPopularityTest, CapSamplesItemsUniformly) {
  v1::DpPopularityConfig c = NoisyConfig();
  c.set_noise(false);
  c.set_max_items(2);
  std::unique_ptr<DpPopularityUpdater> updater = DpPopularityUpdater::Create(c).value();
  EXPECT_FALSE(updater->RoundPrivacy(kUsers, dp::DefaultOrders()).value().has_value());
  EXPECT_FALSE(updater->budget().has_value());
  std::unique_ptr<DpPopularityContributor> contributor =
      DpPopularityContributor::Create(updater->Plan().value()).value();
  const Rows rows({{1, 4, 9, 12, 19}});
  dp::Rng rng(12);
  constexpr int kDraws = 20000;
  std::vector<int> chosen(kItems, 0);
  for (int r = 0; r < kDraws; ++r) {
    const std::vector<uint64_t> v = contributor->Contribute(LocalData::User(rows.rows[0]), "", rng)
                                        .value()
                                        .vector.Densify(kItems)
                                        .value();
    int ones = 0;
    for (int j = 0; j < kItems; ++j) {
      ones += static_cast<int>(v[j]);
      chosen[j] += static_cast<int>(v[j]);
    }
    ASSERT_EQ(ones, 2);
  }
  for (int j : {1, 4, 9, 12, 19}) {
    EXPECT_NEAR(chosen[j] / double{kDraws}, 0.4, kSigmas * FrequencySe(0.4, kDraws)) << j;
  }
  EXPECT_EQ(chosen[0], 0);
}

TEST(DpPopularityTest, ExactCountWithoutNoiseAndOneRoundOnly) {
  v1::DpPopularityConfig c = NoisyConfig();
  c.set_noise(false);
  c.set_max_items(0);  // no cap
  std::unique_ptr<DpPopularityUpdater> updater = DpPopularityUpdater::Create(c).value();
  const v1::RoundPlan plan = updater->Plan().value();
  std::unique_ptr<DpPopularityContributor> contributor =
      DpPopularityContributor::Create(plan).value();
  const std::vector<std::vector<int32_t>> items = UserItems();
  dp::Rng rng(13);
  const Eigen::VectorXd counts =
      OneCount(*updater, *contributor, Rows(items), static_cast<int>(plan.bits()), rng);
  Eigen::VectorXd truth = Eigen::VectorXd::Zero(kItems);
  for (const auto& user : items) {
    for (int32_t j : user) truth[j] += 1;
  }
  EXPECT_EQ(counts, truth);
  // The model scores every item by its count.
  std::vector<uint64_t> sum(kItems, 1);
  std::vector<uint32_t> ids(kUsers);
  for (int u = 0; u < kUsers; ++u) ids[u] = static_cast<uint32_t>(u + 1);
  ASSERT_TRUE(updater->ApplySum(sum, ids).ok());
  EXPECT_EQ(updater->round(), 1);
  EXPECT_EQ(updater->ApplySum(sum, ids).code(), absl::StatusCode::kFailedPrecondition);
  std::unique_ptr<DpPopularityContributor> after =
      DpPopularityContributor::Create(updater->Plan().value()).value();
  EXPECT_EQ(after->scorer().Scores({}).value(), Eigen::VectorXd::Ones(kItems));
}

TEST(DpPopularityTest, RefusesBadConfigsPlansAndParties) {
  v1::DpPopularityConfig c = NoisyConfig();
  c.set_max_items(0);  // noise needs a cap
  EXPECT_FALSE(DpPopularityUpdater::Create(c).ok());
  c = NoisyConfig();
  c.set_min_contributors(kUsers + 1);
  EXPECT_FALSE(DpPopularityUpdater::Create(c).ok());
  c = NoisyConfig();
  c.set_epsilon(0);
  EXPECT_FALSE(DpPopularityUpdater::Create(c).ok());

  std::unique_ptr<DpPopularityUpdater> updater = DpPopularityUpdater::Create(NoisyConfig()).value();
  v1::RoundPlan plan = updater->Plan().value();
  plan.set_min_contributors(kUsers - 1);  // fewer than the noise assumed
  EXPECT_FALSE(DpPopularityContributor::Create(plan).ok());
  plan = updater->Plan().value();
  plan.set_bits(plan.bits() + 1);
  EXPECT_FALSE(DpPopularityContributor::Create(plan).ok());
  plan = updater->Plan().value();
  plan.set_algorithm("probe");
  EXPECT_FALSE(DpPopularityContributor::Create(plan).ok());

  std::unique_ptr<DpPopularityContributor> contributor =
      DpPopularityContributor::Create(updater->Plan().value()).value();
  dp::Rng rng(14);
  EXPECT_FALSE(
      contributor->Contribute(LocalData::Party(std::make_shared<PartyShard>()), "", rng).ok());
  const std::vector<int32_t> outside = {kItems};
  const std::vector<float> rating = {5};
  EXPECT_FALSE(
      contributor
          ->Contribute(LocalData::User({.indices = outside, .ratings = rating, .timestamps = {}}),
                       "", rng)
          .ok());
  EXPECT_FALSE(DpPopularityUpdater::Restore("not a state").ok());
}

TEST(DpPopularityTest, NewRunNeedsOneRound) {
  RunSettings run{.num_users = kUsers,
                  .num_items = kItems,
                  .rounds = 2,
                  .participation = 1,
                  .epsilon = 2,
                  .delta = 1e-5,
                  .seed = 1};
  const google::protobuf::Message& options = *RegisteredDefaultOptions(kAlgorithmName).value();
  absl::Status status = StartNewRun(kAlgorithmName, run, options).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("--rounds=2 must be 1"), std::string::npos);
  run.rounds = 1;
  absl::StatusOr<NewRun> ok = StartNewRun(kAlgorithmName, run, options);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->updater->round(), 0);
}

}  // namespace
}  // namespace fedmf::algorithms::dp_popularity
