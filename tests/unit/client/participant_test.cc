#include "client/participant.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "common/algorithms/registry.h"
#include "crypto/secagg/vector_codec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/client/test_round.h"

namespace fedmf::client {
namespace {

using ::testing::ElementsAre;

// Test-only: every contribution is the same given vector (e.g. sparse, the shape of a local-DP
// report or of a graph filter's few non-zeros), for any ratings; a model of 8 items, rank 2.
class FixedContributor : public algorithms::Contributor {
 public:
  explicit FixedContributor(algorithms::ContributionVector vector) : vector_(std::move(vector)) {}

  absl::StatusOr<algorithms::Contribution> Contribute(const data::RatingRow&,
                                                      dp::Rng&) const override {
    return algorithms::Contribution{.vector = vector_, .user_factor = Eigen::VectorXd::Ones(2)};
  }
  absl::StatusOr<Eigen::VectorXd> UserFactor(const data::RatingRow&) const override {
    return Eigen::VectorXd::Ones(2);
  }
  const mf::FactorMatrix& item_factors() const override { return items_; }

 private:
  algorithms::ContributionVector vector_;
  mf::FactorMatrix items_ = mf::FactorMatrix::Zero(8, 2);
};

TEST(ParticipantTest, RejectsIdZero) {
  auto data = test_util::SmallData();
  EXPECT_EQ(Participant::Create(0, data->user(0)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ParticipantTest, SecAggMessageOutsideARoundIsAPreconditionError) {
  auto data = test_util::SmallData();
  Participant p = Participant::Create(1, data->user(0)).value();
  EXPECT_EQ(p.Handle(v1::secagg::ServerToClient()).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(ParticipantTest, StartRoundAdvertisesKeysAndKeepsTheUserFactor) {
  auto data = test_util::SmallData();
  auto updater = test_util::SmallUpdater();
  const v1::RoundPlan plan = updater->Plan().value();
  auto contributor = algorithms::MakeContributor(plan).value();
  secagg::SessionConfig config{.context = "t/round-0",
                               .num_clients = 10,
                               .threshold = 6,
                               .bits = plan.bits(),
                               .length = plan.length()};
  Participant p = Participant::Create(3, data->user(2)).value();
  const absl::StatusOr<v1::secagg::ClientToServer> advertise = p.StartRound(*contributor, config);
  ASSERT_TRUE(advertise.ok()) << advertise.status();
  EXPECT_TRUE(advertise->has_advertise_keys());
  EXPECT_EQ(advertise->advertise_keys().c_public_key().size(), 32u);
  EXPECT_EQ(p.user_factor().size(), 4);  // rank
  ASSERT_NE(p.session(), nullptr);
  p.EndRound();
  EXPECT_EQ(p.session(), nullptr);
}

TEST(ParticipantTest, StartRoundRejectsASessionOfTheWrongLength) {
  auto data = test_util::SmallData();
  auto updater = test_util::SmallUpdater();
  const v1::RoundPlan plan = updater->Plan().value();
  auto contributor = algorithms::MakeContributor(plan).value();
  secagg::SessionConfig config{.context = "t",
                               .num_clients = 10,
                               .threshold = 6,
                               .bits = plan.bits(),
                               .length = plan.length() + 1};
  Participant p = Participant::Create(1, data->user(0)).value();
  EXPECT_EQ(p.StartRound(*contributor, config).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(p.session(), nullptr);
}

// With a seed the noise generator is dp::Rng(seed, id): the same (seed, id) gives the same PBM
// vector; another id, another seed or the OS-keyed generator give other noise. (Each of the d
// coordinates is a Binomial(q, ~1/2) draw, so two independent vectors agree everywhere with
// probability below (1/2)^d, d = plan.length() >= 30 here.)
TEST(ParticipantTest, SeededNoiseIsAFunctionOfSeedAndIdOnly) {
  auto data = test_util::SmallData();
  auto updater = test_util::SmallUpdater(true, algorithms::dpmf_rp::Mechanism::kPbm);
  const v1::RoundPlan plan = updater->Plan().value();
  ASSERT_GE(plan.length(), 30u);
  auto contributor = algorithms::MakeContributor(plan).value();
  const data::RatingRow row = data->user(2);
  auto values = [&](Participant& p) {
    const v1::ClearUpload u = p.ContributeClear(*contributor, 0).value();
    return std::vector<uint64_t>(u.values().begin(), u.values().end());
  };
  auto vector = [&](uint32_t id, std::optional<uint64_t> seed) {
    Participant p = Participant::Create(id, row, {}, seed).value();
    return values(p);
  };
  const std::vector<uint64_t> reference = vector(3, 42);
  EXPECT_EQ(vector(3, 42), reference);
  EXPECT_NE(vector(4, 42), reference);
  EXPECT_NE(vector(3, 43), reference);
  EXPECT_NE(vector(3, std::nullopt), reference);
  // The generator continues: a participant's second contribution is fresh noise.
  Participant p = Participant::Create(3, row, {}, 42).value();
  EXPECT_EQ(values(p), reference);
  EXPECT_NE(values(p), reference);
}

TEST(ParticipantTest, RecommendsOnlyUnratedItems) {
  auto data = test_util::SmallData();
  auto updater = test_util::SmallUpdater();
  auto contributor = algorithms::MakeContributor(updater->Plan().value()).value();
  Participant p = Participant::Create(1, data->user(0)).value();
  const auto top = p.Recommend(*contributor, 5).value();
  // Fewer than 5 when the user rated all but a few of the 30 items.
  const size_t unrated = 30 - static_cast<size_t>(p.ratings().size());
  ASSERT_EQ(top.size(), std::min<size_t>(5, unrated));
  ASSERT_GT(top.size(), 0u);
  for (const mf::Recommendation& r : top) {
    EXPECT_EQ(std::count(p.ratings().indices.begin(), p.ratings().indices.end(), r.item), 0)
        << "item " << r.item << " was rated";
  }
}

// A sparse contribution goes out as a sparse clear upload: its indices and values only.
TEST(ParticipantTest, ContributeClearUploadsASparseContributionSparsely) {
  const FixedContributor contributor(algorithms::ContributionVector::Sparse({1, 6}, {9, 4}));
  Participant p = Participant::Create(5, {}).value();
  const v1::ClearUpload upload = p.ContributeClear(contributor, 3).value();
  EXPECT_EQ(upload.participant_id(), 5u);
  EXPECT_EQ(upload.round(), 3);
  EXPECT_TRUE(upload.sparse());
  EXPECT_THAT(upload.indices(), ElementsAre(1, 6));
  EXPECT_THAT(upload.values(), ElementsAre(9, 4));
  EXPECT_EQ(p.user_factor().size(), 2);
}

// SecAgg sums dense vectors: the session's input is the densified contribution; a contribution
// with a coordinate outside the session's length opens no session.
TEST(ParticipantTest, StartRoundDensifiesASparseContribution) {
  const FixedContributor contributor(algorithms::ContributionVector::Sparse({1, 6}, {9, 4}));
  const secagg::SessionConfig config{
      .context = "t/round-0", .num_clients = 3, .threshold = 2, .bits = 5, .length = 8};
  Participant p = Participant::Create(1, {}).value();
  ASSERT_TRUE(p.StartRound(contributor, config).ok());
  const v1::secagg::ClientSessionState state = p.ExportSession().value().value();
  ASSERT_TRUE(state.has_input());
  EXPECT_THAT(secagg::UnpackVector(secagg::AsBytes(state.input()), 8, 5).value(),
              ElementsAre(0, 9, 0, 0, 0, 0, 4, 0));

  const FixedContributor outside(algorithms::ContributionVector::Sparse({8}, {1}));
  EXPECT_EQ(p.StartRound(outside, config).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(p.session(), nullptr);
}

}  // namespace
}  // namespace fedmf::client
