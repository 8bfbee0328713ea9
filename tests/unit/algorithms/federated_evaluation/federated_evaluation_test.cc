// The federated-evaluation algorithm alone (common/algorithms/federated_evaluation/): its plan's
// validation, a contribution as the encoded metric sums of the participant's users, a party's
// users all evaluated, and models without rating predictions.
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "common/algorithms/dpmf_rp/updater.h"
#include "common/algorithms/federated_evaluation/contributor.h"
#include "common/algorithms/federated_evaluation/plan.h"
#include "common/algorithms/local_data.h"
#include "common/algorithms/registry.h"
#include "common/metrics/metric_codec.h"
#include "common/metrics/user_metrics.h"
#include "fedmf/v1/federated_evaluation.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/algorithms/dpmf_rp/test_util.h"
#include "tests/unit/algorithms/item_item_filter.h"

namespace fedmf::algorithms::federated_evaluation {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kCohort = 10;

// The next plan of a small DPMF-RP run (12 items, rank 3): the evaluated model.
v1::RoundPlan ModelPlan() {
  return dpmf_rp::DpmfRpUpdater::Create(
             dpmf_rp::testing::SmallConfig(dpmf_rp::Mechanism::kNone, dpmf_rp::Projection::kNone))
      .value()
      ->Plan()
      .value();
}

v1::RoundPlan Plan() { return MakePlan(ModelPlan(), kCohort, metrics::kDpmfRpRanking).value(); }

// Plan() with its payload changed by `edit`.
template <typename Edit>
v1::RoundPlan WithPayload(Edit edit) {
  v1::RoundPlan plan = Plan();
  v1::FederatedEvaluationPlan payload;
  EXPECT_TRUE(payload.ParseFromString(plan.payload()));
  edit(payload);
  plan.set_payload(payload.SerializeAsString());
  return plan;
}

// InvalidArgument whose message names `field` and its value.
void ExpectRefused(const v1::RoundPlan& plan, absl::string_view field_and_value) {
  const absl::Status s = FederatedEvaluationContributor::Create(plan).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr(field_and_value));
}

// Every field of the sums, to compare them exactly.
auto Fields(const metrics::MetricSums& s) {
  return std::make_tuple(s.num_ratings, s.squared_error, s.absolute_error, s.user_rmse,
                         s.error_users, s.precision, s.recall, s.ap, s.ap_at_n, s.ndcg,
                         s.ranking_users, s.skipped_users);
}

// One user's sums by the metric formulas, as the evaluation defines them (ratings predicted with
// fallback mean 0).
void AddUser(const Scorer& model, const data::RatingRow& train, const data::RatingRow& test,
             metrics::MetricSums& sums) {
  if (test.size() == 0) return;
  const Eigen::VectorXd predicted = model.PredictRatings(train, 0).value();
  sums.Add(
      metrics::EvaluateUserErrors(test, {predicted.data(), static_cast<size_t>(predicted.size())}));
  const Eigen::VectorXd scores = model.Scores(train).value();
  sums.Add(
      metrics::EvaluateUserRanking(train, test, {scores.data(), static_cast<size_t>(scores.size())},
                                   metrics::kDpmfRpRanking),
      /*has_test=*/true);
}

// 8 users rating the odd items 1, 3, ..., 11 of 12: train ratings on some, test on others.
struct Split {
  data::RatingsDataset train = dpmf_rp::testing::MakeDataset(8, 12, Ratings(0));
  data::RatingsDataset test = dpmf_rp::testing::MakeDataset(8, 12, Ratings(1));

  static std::vector<std::tuple<int, int, float>> Ratings(int part) {
    std::vector<std::tuple<int, int, float>> r;
    for (int u = 0; u < 8; ++u) {
      for (int k = 0; k < 6; ++k) {
        if ((u + k) % 3 == (part == 0 ? 2 : 0) || (part == 0 && (u + k) % 3 == 1)) {
          r.emplace_back(u, 2 * k + 1, static_cast<float>(1 + (u * 7 + k * 3) % 5));
        }
      }
    }
    return r;
  }
};

TEST(FederatedEvaluationTest, PlanCarriesTheModelAndTheCohortsMetricFormat) {
  const v1::RoundPlan model = ModelPlan();
  const v1::RoundPlan plan = Plan();
  const metrics::MetricCodec codec = metrics::MetricCodec::ForContributors(kCohort).value();
  EXPECT_EQ(plan.algorithm(), kAlgorithmName);
  EXPECT_EQ(plan.round(), model.round());
  EXPECT_EQ(plan.phase(), 0);  // the runtime tags it
  EXPECT_EQ(plan.length(), codec.length());
  EXPECT_EQ(plan.bits(), codec.bits());
  EXPECT_EQ(plan.client_bits(), codec.bits());
  EXPECT_EQ(plan.combination(), v1::COMBINATION_SECURE_SUM);
  EXPECT_EQ(plan.max_contributors(), kCohort);
  EXPECT_EQ(plan.min_contributors(), std::min(model.min_contributors(), kCohort));
  const EvaluationPlan parsed = ParsePlan(plan).value();
  EXPECT_EQ(parsed.model.SerializeAsString(), model.SerializeAsString());
  EXPECT_EQ(parsed.ranking.top_n, metrics::kDpmfRpRanking.top_n);
  EXPECT_EQ(parsed.ranking.relevance_threshold, metrics::kDpmfRpRanking.relevance_threshold);
  EXPECT_EQ(parsed.codec.fraction_bits(), codec.fraction_bits());
  // Registered, without an updater; its scorer is the model's.
  std::unique_ptr<Contributor> contributor = MakeContributor(plan).value();
  EXPECT_EQ(contributor->scorer().num_items(), 12);
  EXPECT_TRUE(FindAlgorithm(kAlgorithmName).value()->contributor_only());
  EXPECT_EQ(MakePlan(model, 0, metrics::kDpmfRpRanking).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakePlan(model, kCohort, {.top_n = 0}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(FederatedEvaluationTest, RefusesAPlanThatDisagreesWithItsMetricFormat) {
  v1::RoundPlan plan = Plan();
  plan.set_algorithm("dpmf-rp");
  ExpectRefused(plan, "algorithm 'dpmf-rp'");
  plan = Plan();
  plan.set_payload("\xff");
  ExpectRefused(plan, "payload");
  plan = Plan();
  plan.set_length(12);
  ExpectRefused(plan, "length 12, expected 13");
  plan = Plan();
  plan.set_bits(61);
  ExpectRefused(plan, "bits 61, expected 62");
  plan = Plan();
  plan.set_client_bits(40);
  ExpectRefused(plan, "client_bits 40, expected 62");
  plan = Plan();
  plan.set_combination(v1::COMBINATION_CLEAR);
  ExpectRefused(plan, "combination 2");
  plan = Plan();
  plan.set_max_contributors(0);
  ExpectRefused(plan, "max_contributors 0");
  plan = Plan();
  plan.set_max_contributors(int64_t{1} << 22);
  ExpectRefused(plan, "max_contributors 4194304");
  plan = Plan();
  plan.set_min_contributors(kCohort + 1);
  ExpectRefused(plan, "min_contributors 11");
  plan = Plan();
  plan.set_round(plan.round() + 5);
  ExpectRefused(plan, "model.round");
  const int f = metrics::MetricCodec::ForContributors(kCohort)->fraction_bits();
  ExpectRefused(WithPayload([&](v1::FederatedEvaluationPlan& p) { p.set_fraction_bits(f + 1); }),
                absl::StrCat("fraction_bits ", f + 1, ", expected ", f));
  ExpectRefused(WithPayload([](v1::FederatedEvaluationPlan& p) { p.set_top_n(0); }), "top_n 0");
  ExpectRefused(WithPayload([](v1::FederatedEvaluationPlan& p) { *p.mutable_model() = Plan(); }),
                "model.algorithm is federated-evaluation");
  // The model's own validation.
  const absl::Status model =
      FederatedEvaluationContributor::Create(WithPayload([](v1::FederatedEvaluationPlan& p) {
        p.mutable_model()->set_payload("not a broadcast");
      })).status();
  EXPECT_FALSE(model.ok());
  EXPECT_THAT(model.message(), HasSubstr("model"));
}

// A user's contribution is the codec's encoding of their sums by the metric formulas, dense; it
// keeps no state and returns no factor.
TEST(FederatedEvaluationTest, AUsersContributionIsTheirEncodedSums) {
  const Split split;
  const auto contributor = FederatedEvaluationContributor::Create(Plan()).value();
  const metrics::MetricCodec codec = metrics::MetricCodec::ForContributors(kCohort).value();
  dp::Rng rng(1);
  int evaluated = 0;
  for (int32_t u = 0; u < split.train.num_users(); ++u) {
    metrics::MetricSums expected;
    AddUser(contributor->scorer(), split.train.user(u), split.test.user(u), expected);
    evaluated += expected.error_users > 0;
    const Contribution c =
        contributor->Contribute(LocalData::User(split.train.user(u), split.test.user(u)), "", rng)
            .value();
    EXPECT_EQ(c.vector.Densify(codec.length()).value(), codec.Encode(expected)) << u;
    EXPECT_TRUE(c.state.empty());
    EXPECT_EQ(c.user_factor.size(), 0);
  }
  EXPECT_GT(evaluated, 4);
}

// A party holding users 1, 4 and 6 and the odd items (its local items 0..5): every one of its
// users is evaluated in global item ids, and its sums are theirs added in order.
TEST(FederatedEvaluationTest, EvaluatesEveryUserOfAParty) {
  const Split split;
  const std::vector<int32_t> users = {1, 4, 6};
  const std::vector<int32_t> items = {1, 3, 5, 7, 9, 11};
  std::vector<std::tuple<int, int, float>> train, test;
  for (int local = 0; local < 3; ++local) {
    for (int part = 0; part < 2; ++part) {
      const data::RatingRow row =
          (part == 0 ? split.train : split.test).user(users[static_cast<size_t>(local)]);
      for (int64_t k = 0; k < row.size(); ++k) {
        (part == 0 ? train : test).emplace_back(local, row.indices[k] / 2, row.ratings[k]);
      }
    }
  }
  auto shard = std::make_shared<PartyShard>();
  shard->train =
      std::make_shared<const data::RatingsDataset>(dpmf_rp::testing::MakeDataset(3, 6, train));
  shard->test =
      std::make_shared<const data::RatingsDataset>(dpmf_rp::testing::MakeDataset(3, 6, test));
  shard->global_users = users;
  shard->global_items = items;
  ASSERT_TRUE(shard->Validate().ok());

  const auto contributor = FederatedEvaluationContributor::Create(Plan()).value();
  metrics::MetricSums expected;
  for (int32_t u : users) {
    AddUser(contributor->scorer(), split.train.user(u), split.test.user(u), expected);
  }
  ASSERT_EQ(expected.error_users, 3);
  const metrics::MetricSums sums =
      EvaluateUsers(LocalData::Party(shard), contributor->scorer(), metrics::kDpmfRpRanking)
          .value();
  EXPECT_EQ(Fields(sums), Fields(expected));
  dp::Rng rng(1);
  const metrics::MetricCodec codec = metrics::MetricCodec::ForContributors(kCohort).value();
  EXPECT_EQ(contributor->Contribute(LocalData::Party(shard), "", rng)
                .value()
                .vector.Densify(codec.length())
                .value(),
            codec.Encode(expected));
}

// A ranking-only model: the ranking part as metrics.h defines it, no error part (absent, not 0).
TEST(FederatedEvaluationTest, EvaluatesAModelWithoutRatingPredictions) {
  const test_util::ItemItemFilter filter = test_util::FiveItemFilter();
  const std::vector<int32_t> train_items = {0, 1};
  const std::vector<float> train_ratings = {1, 2};
  // Test: item 2 rated 2, item 3 rated 5, item 4 rated 4; relevant (>= 4): items 3 and 4.
  const std::vector<int32_t> test_items = {2, 3, 4};
  const std::vector<float> test_ratings = {2, 5, 4};
  const LocalData user =
      LocalData::User({train_items, train_ratings, {}}, {test_items, test_ratings, {}});
  const metrics::RankingOptions options{.top_n = 2, .relevance_threshold = 4};
  const metrics::MetricSums sums = EvaluateUsers(user, filter, options).value();
  EXPECT_EQ(sums.num_ratings, 0);
  EXPECT_EQ(sums.error_users, 0);
  EXPECT_EQ(sums.squared_error, 0);
  EXPECT_TRUE(sums.errors_absent());
  // Top 2 of the candidates 4 (4), 2 (3), 3 (3) is (4, 2): one hit of R = 2 relevant items.
  EXPECT_EQ(sums.ranking_users, 1);
  EXPECT_EQ(sums.precision, 0.5);
  EXPECT_EQ(sums.recall, 0.5);
  EXPECT_EQ(sums.ap, 1);
  EXPECT_EQ(sums.ap_at_n, 0.5);
}

TEST(FederatedEvaluationTest, RefusesTestItemsOutsideTheModelAndInvalidOptions) {
  const test_util::ItemItemFilter filter = test_util::FiveItemFilter();  // 5 items
  const std::vector<int32_t> train_items = {0, 1};
  const std::vector<float> train_ratings = {1, 2};
  const std::vector<int32_t> outside = {3, 5};
  const std::vector<float> ratings = {4, 5};
  const LocalData user = LocalData::User({train_items, train_ratings, {}}, {outside, ratings, {}});
  const absl::Status s = EvaluateUsers(user, filter, metrics::kDpmfRpRanking).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("test item 5"));
  EXPECT_EQ(EvaluateUsers(LocalData::User({train_items, train_ratings, {}}), filter, {.top_n = 0})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace fedmf::algorithms::federated_evaluation
