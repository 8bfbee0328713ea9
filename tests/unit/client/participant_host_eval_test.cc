// ParticipantHost running a federated evaluation: a RoundTask of the federated-evaluation
// algorithm (common/algorithms/federated_evaluation/) tagged with the evaluation phase.
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <tuple>

#include "client/participant_host.h"
#include "common/algorithms/dpmf_rp/contributor.h"
#include "common/algorithms/factor_scorer.h"
#include "common/algorithms/federated_evaluation/contributor.h"
#include "common/algorithms/federated_evaluation/plan.h"
#include "common/algorithms/party_split.h"
#include "common/algorithms/registry.h"
#include "common/data/splits.h"
#include "common/metrics/metric_codec.h"
#include "common/metrics/metrics.h"
#include "common/mf/rating_predictor.h"
#include "crypto/secagg/server_session.h"
#include "fedmf/v1/federated_evaluation.pb.h"
#include "gtest/gtest.h"
#include "tests/unit/client/test_round.h"
#include "wire/envelope.h"
#include "wire/secagg_params.h"

namespace fedmf::client {
namespace {

using ::fedmf::algorithms::federated_evaluation::EvaluateUsers;

using test_util::Cohort;
using test_util::kCohort;

struct EvaluationRound {
  std::shared_ptr<const data::RatingsDataset> all = test_util::SmallData();
  data::TrainTest split = data::SplitHoldoutPerUser(*all, 0.25, 7).value();
  std::shared_ptr<const data::RatingsDataset> train =
      std::make_shared<const data::RatingsDataset>(split.train);
  std::shared_ptr<const data::RatingsDataset> test =
      std::make_shared<const data::RatingsDataset>(split.test);
  std::unique_ptr<algorithms::dpmf_rp::DpmfRpUpdater> updater = test_util::SmallUpdater();
  v1::RoundPlan plan = updater->Plan().value();
  metrics::MetricCodec codec = metrics::MetricCodec::ForContributors(kCohort).value();
  secagg::SessionConfig config{.context = "test/eval-0",
                               .num_clients = kCohort,
                               .threshold = 6,
                               .bits = codec.bits(),
                               .length = codec.length()};

  std::unique_ptr<ParticipantHost> Host(bool with_test = true) {
    return ParticipantHost::Create(train, test_util::AllUsers(*train), with_test ? test : nullptr)
        .value();
  }
  v1::ServerMessage Task(std::vector<uint32_t> ids) {
    v1::ServerMessage m;
    v1::RoundTask* t = m.mutable_task();
    t->set_round(0);
    *t->mutable_plan() =
        algorithms::federated_evaluation::MakePlan(plan, kCohort, metrics::kDpmfRpRanking).value();
    t->mutable_plan()->set_phase(wire::kEvaluationPhase);
    *t->mutable_secagg() = wire::ToProto(config);
    for (uint32_t id : ids) t->add_participant_ids(id);
    return m;
  }
  // Task(ids) with its plan's payload changed by `edit`.
  v1::ServerMessage TaskWithPayload(const std::function<void(v1::FederatedEvaluationPlan&)>& edit) {
    v1::ServerMessage m = Task(test_util::ParticipantIds(kCohort));
    v1::FederatedEvaluationPlan payload;
    EXPECT_TRUE(payload.ParseFromString(m.task().plan().payload()));
    edit(payload);
    m.mutable_task()->mutable_plan()->set_payload(payload.SerializeAsString());
    return m;
  }
};

// A whole evaluation round through the host and a real ServerSession: the decoded metrics are
// the central metrics of the ten users (users 0-9) under the same model. Each user's values are
// rounded to 2^-f with f = 61 - 24 - ceil(log2 10) = 33, so every sum is within 10 * 2^-34 =
// 5.8e-10 of the exact one; RMSE = sqrt(S / N) moves by at most that / (2 N RMSE) (N >= 10 test
// ratings, RMSE > 0.1 here), so 1e-9 bounds both.
TEST(ParticipantHostEvalTest, AnswersAWholeEvaluationRound) {
  EvaluationRound f;
  ASSERT_EQ(f.codec.fraction_bits(), 33);
  auto host = f.Host();
  auto server = secagg::ServerSession::Create(f.config, Cohort(), nullptr).value();
  absl::StatusOr<std::vector<v1::ClientMessage>> advertise = host->Handle(f.Task(Cohort()));
  ASSERT_TRUE(advertise.ok()) << advertise.status();
  ASSERT_EQ(advertise->size(), static_cast<size_t>(kCohort));
  // Every reply must be tagged as evaluation traffic (RunSecAggRound checks).
  absl::StatusOr<int> run = test_util::RunSecAggRound(*host, *server, *advertise, true);
  ASSERT_TRUE(run.ok()) << run.status();
  const auto decoded = f.codec.Decode(server->result().value(), kCohort);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->clamped_users, 0);

  // Central: the same users' test ratings; ranked with factors solved on their train ratings,
  // rated with mf::RatingPredictor fitted on them (as server/evaluation.cc).
  auto contributor = algorithms::dpmf_rp::DpmfRpContributor::Create(f.plan).value();
  const algorithms::FactorScorer& model = contributor->scorer();
  std::vector<int64_t> cohort_ratings;
  for (int64_t k = 0; k < f.test->num_ratings(); ++k) {
    if (f.test->rating(k).user < kCohort) cohort_ratings.push_back(k);
  }
  const data::RatingsDataset cohort_test = f.test->Subset(cohort_ratings);
  const metrics::UserScorer scorer = [&](int32_t u, absl::Span<double> scores) {
    const Eigen::VectorXd factor = model.UserFactor(f.train->user(u)).value();
    Eigen::Map<Eigen::VectorXd>(scores.data(), static_cast<Eigen::Index>(scores.size())) =
        model.item_factors() * factor;
  };
  const metrics::UserScorer rating_scorer = [&](int32_t u, absl::Span<double> scores) {
    const mf::RatingPredictor p =
        mf::RatingPredictor::Fit(model.item_factors(), f.train->user(u), {}, 0).value();
    Eigen::Map<Eigen::VectorXd>(scores.data(), static_cast<Eigen::Index>(scores.size())) =
        ((model.item_factors() * p.weights()).array() + p.mean()).cwiseMax(1).cwiseMin(5);
  };
  const metrics::ErrorMetrics errors = metrics::EvaluateErrors(cohort_test, rating_scorer);
  const metrics::RankingMetrics ranking =
      metrics::EvaluateRanking(*f.train, cohort_test, scorer, metrics::kDpmfRpRanking);
  const metrics::ErrorMetrics fed_errors = decoded->sums.Errors();
  const metrics::RankingMetrics fed_ranking = decoded->sums.Ranking();
  EXPECT_EQ(fed_errors.num_ratings, errors.num_ratings);
  EXPECT_EQ(fed_errors.num_users, kCohort);
  EXPECT_GT(errors.rmse, 0.1);
  EXPECT_NEAR(fed_errors.rmse, errors.rmse, 1e-9);
  EXPECT_NEAR(fed_errors.mae, errors.mae, 1e-9);
  EXPECT_NEAR(fed_errors.per_user_rmse, errors.per_user_rmse, 1e-9);
  EXPECT_EQ(fed_ranking.num_users, ranking.num_users);
  EXPECT_EQ(fed_ranking.num_skipped_users, ranking.num_skipped_users);
  EXPECT_NEAR(fed_ranking.precision, ranking.precision, 1e-9);
  EXPECT_NEAR(fed_ranking.recall, ranking.recall, 1e-9);
  EXPECT_NEAR(fed_ranking.map, ranking.map, 1e-9);

  // The result closes the sessions; an evaluation is not a training round.
  v1::ServerMessage result;
  result.mutable_result()->set_applied(true);
  result.mutable_result()->set_phase(wire::kEvaluationPhase);
  EXPECT_TRUE(host->Handle(result).value().empty());
  EXPECT_EQ(host->rounds_completed(), 0);
  EXPECT_EQ(host->Find(1)->session(), nullptr);
}

TEST(ParticipantHostEvalTest, RefusesATaskWithAnotherMetricFormat) {
  EvaluationRound f;
  auto host = f.Host();
  v1::ServerMessage task = f.TaskWithPayload(
      [&](v1::FederatedEvaluationPlan& p) { p.set_fraction_bits(f.codec.fraction_bits() + 1); });
  EXPECT_EQ(host->Handle(task).status().code(), absl::StatusCode::kInvalidArgument);
  task = f.Task(Cohort());
  task.mutable_task()->mutable_secagg()->set_bits(61);
  EXPECT_EQ(host->Handle(task).status().code(), absl::StatusCode::kInvalidArgument);
  task = f.Task(Cohort());
  task.mutable_task()->mutable_secagg()->set_length(12);
  EXPECT_EQ(host->Handle(task).status().code(), absl::StatusCode::kInvalidArgument);
  task = f.TaskWithPayload([](v1::FederatedEvaluationPlan& p) { p.set_top_n(0); });
  EXPECT_EQ(host->Handle(task).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(host->Find(1)->session(), nullptr);  // nothing started
}

// The host's model stays the trained one: an evaluation neither replaces it (recommendations,
// the mobile state's model) nor leaves a local state or clears the participants' user factors.
TEST(ParticipantHostEvalTest, AnEvaluationLeavesTheHostsModelAndStates) {
  EvaluationRound f;
  auto host = f.Host();
  v1::ServerMessage training;
  *training.mutable_task()->mutable_plan() = f.plan;
  training.mutable_task()->set_round(0);
  training.mutable_task()->set_simulation_plain_sum(true);
  host->AllowSimulationPlainSum();
  training.mutable_task()->add_participant_ids(1);
  ASSERT_TRUE(host->Handle(training).ok());
  const algorithms::Contributor* model = host->contributor();
  ASSERT_NE(model, nullptr);
  const Eigen::VectorXd factor = host->Find(1)->user_factor();
  ASSERT_GT(factor.size(), 0);
  const std::string state = host->ExportLocalState().SerializeAsString();

  ASSERT_TRUE(host->Handle(f.Task(Cohort())).ok());
  EXPECT_EQ(host->contributor(), model);
  EXPECT_EQ(host->model().SerializeAsString(), f.plan.SerializeAsString());
  EXPECT_EQ(host->Find(1)->user_factor(), factor);
  EXPECT_EQ(host->ExportLocalState().SerializeAsString(), state);
}

TEST(ParticipantHostEvalTest, RefusesATaskForAUserItDoesNotHost) {
  EvaluationRound f;
  auto host = ParticipantHost::Create(f.train, {0, 1}, f.test).value();
  EXPECT_EQ(host->Handle(f.Task({1, 2, 3})).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(host->Find(1)->session(), nullptr);
}

TEST(ParticipantHostEvalTest, RefusesTestRatingsOfAnotherShape) {
  EvaluationRound f;
  data::SyntheticConfig c;
  c.num_users = 41;
  c.num_items = 30;
  c.ratings_per_user = 8;
  c.min_ratings_per_user = 4;
  auto other = std::make_shared<const data::RatingsDataset>(data::GenerateSynthetic(c).value());
  EXPECT_EQ(ParticipantHost::Create(f.train, {0}, other).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// Training traffic (or another round's) during an evaluation round is refused and changes nothing.
TEST(ParticipantHostEvalTest, TrainingMessagesAreRefusedDuringAnEvaluationRound) {
  EvaluationRound f;
  auto host = f.Host();
  ASSERT_TRUE(host->Handle(f.Task(Cohort())).ok());
  v1::ServerMessage m;
  m.mutable_secagg()->set_participant_id(1);
  m.mutable_secagg()->set_round(0);
  m.mutable_secagg()->mutable_message()->mutable_share_keys();
  EXPECT_EQ(host->Handle(m).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(host->Find(1)->session()->stage(), secagg::ClientStage::kAwaitingShareKeys);
}

TEST(ParticipantHostEvalTest, UsersWithoutTestRatingsContributeZeros) {
  EvaluationRound f;
  auto host = f.Host(/*with_test=*/false);
  auto contributor = algorithms::MakeContributor(f.plan).value();
  const metrics::MetricSums sums =
      algorithms::federated_evaluation::EvaluateUsers(host->Find(1)->data(), contributor->scorer(),
                                                      metrics::kDpmfRpRanking)
          .value();
  EXPECT_EQ(sums.num_ratings, 0);
  EXPECT_EQ(sums.error_users, 0);
  EXPECT_EQ(sums.ranking_users, 0);
  EXPECT_EQ(f.codec.Encode(sums), std::vector<uint64_t>(13, 0));
  EXPECT_TRUE(host->Handle(f.Task(Cohort())).ok());  // they still take part
}

// Every field of the sums, to compare them exactly.
auto Fields(const metrics::MetricSums& s) {
  return std::make_tuple(s.num_ratings, s.squared_error, s.absolute_error, s.user_rmse,
                         s.error_users, s.precision, s.recall, s.ap, s.ap_at_n, s.ndcg,
                         s.ranking_users, s.skipped_users);
}

// Under DPMF-RP a user's sums are bit for bit those of the factor formulas the evaluation used
// before models were scored through algorithms::Scorer: ranking by V u (eq. 5's factor at the
// ranking kappa), ratings by mf::RatingPredictor (fallback mean 0) clamped to the 1-5 scale.
TEST(ParticipantHostEvalTest, EvaluateEqualsTheFactorFormulasExactly) {
  EvaluationRound f;
  auto host = f.Host();
  auto contributor = algorithms::dpmf_rp::DpmfRpContributor::Create(f.plan).value();
  const algorithms::FactorScorer& model = contributor->scorer();
  const mf::FactorMatrix& v = model.item_factors();
  for (int32_t u = 0; u < f.train->num_users(); ++u) {
    const Participant& p = *host->Find(static_cast<uint32_t>(u) + 1);
    const data::RatingRow train = f.train->user(u);
    const data::RatingRow test = f.test->user(u);
    metrics::MetricSums expected;
    if (test.size() > 0) {
      const mf::RatingPredictor predictor = mf::RatingPredictor::Fit(v, train, {}, 0).value();
      const Eigen::VectorXd predicted =
          ((v * predictor.weights()).array() + predictor.mean()).cwiseMax(1).cwiseMin(5);
      expected.Add(metrics::EvaluateUserErrors(
          test, {predicted.data(), static_cast<size_t>(predicted.size())}));
      const Eigen::VectorXd scores = v * model.UserFactor(train).value();
      expected.Add(metrics::EvaluateUserRanking(train, test,
                                                {scores.data(), static_cast<size_t>(scores.size())},
                                                metrics::kDpmfRpRanking),
                   /*has_test=*/true);
    }
    const metrics::MetricSums sums =
        algorithms::federated_evaluation::EvaluateUsers(p.data(), model, metrics::kDpmfRpRanking)
            .value();
    EXPECT_EQ(Fields(sums), Fields(expected)) << u;
    EXPECT_FALSE(sums.errors_absent()) << u;
  }
}

// A party's host evaluates every user of its shard (the evaluator goes through
// algorithms::ForEachUser): an HFL party's sums are those of its users hosted one by one, added
// in the same order (so exactly equal); a VFL party scores every test rating of its items.
TEST(ParticipantHostEvalTest, APartyEvaluatesAllOfItsUsers) {
  EvaluationRound f;
  auto contributor = algorithms::MakeContributor(f.plan).value();
  auto users = f.Host();
  auto hfl = std::make_shared<const algorithms::PartyShard>(
      algorithms::HorizontalParty(*f.train, f.test.get(), 1, 2).value());
  auto party = ParticipantHost::CreateParty(hfl, 2).value();
  EXPECT_EQ(party->participant_ids(), std::vector<uint32_t>{2});
  auto expected = Fields(metrics::MetricSums());
  for (int32_t u : hfl->global_users) {
    const metrics::MetricSums s = EvaluateUsers(users->Find(static_cast<uint32_t>(u) + 1)->data(),
                                                contributor->scorer(), metrics::kDpmfRpRanking)
                                      .value();
    expected = std::apply(
        [&](auto... total) {
          return std::apply([&](auto... user) { return std::make_tuple((total + user)...); },
                            Fields(s));
        },
        expected);
  }
  const metrics::MetricSums sums =
      EvaluateUsers(party->Find(2)->data(), contributor->scorer(), metrics::kDpmfRpRanking).value();
  EXPECT_GT(sums.num_ratings, 0);
  EXPECT_EQ(Fields(sums), expected);

  auto vfl = std::make_shared<const algorithms::PartyShard>(
      algorithms::VerticalParty(*f.train, f.test.get(), 0, 2).value());
  int64_t users_with_test = 0;
  for (int32_t u = 0; u < vfl->test->num_users(); ++u)
    users_with_test += vfl->test->user(u).size() > 0;
  const metrics::MetricSums vfl_sums =
      EvaluateUsers(ParticipantHost::CreateParty(vfl, 1).value()->Find(1)->data(),
                    contributor->scorer(), metrics::kDpmfRpRanking)
          .value();
  EXPECT_EQ(vfl_sums.num_ratings, vfl->test->num_ratings());
  EXPECT_EQ(vfl_sums.error_users, users_with_test);
  EXPECT_EQ(vfl_sums.ranking_users + vfl_sums.skipped_users, users_with_test);
}

TEST(ParticipantHostEvalTest, CreatePartyRefusesIdZeroAndAMalformedShard) {
  EvaluationRound f;
  auto shard = std::make_shared<algorithms::PartyShard>(
      algorithms::HorizontalParty(*f.train, f.test.get(), 0, 2).value());
  EXPECT_EQ(ParticipantHost::CreateParty(shard, 0).status().code(),
            absl::StatusCode::kInvalidArgument);
  shard->global_users.pop_back();
  EXPECT_EQ(ParticipantHost::CreateParty(shard, 1).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace fedmf::client
