// HFL-SGDMF through the algorithm contract (updater + contributor), against the in-process run
// (in_process_run.h) as the reference: the same seed, config and noise keys give the same V, U_k
// and test MSE up to the fixed point's rounding, in pretrain-u, train-both and syn-sgd; a retried
// round uploads the same vector; a party without its state is refused; each round's ledger entry
// is one party's T' steps (syn-sgd: one step; a user lives on one party), syn-sgd's clamp bounds
// every noiseless gradient sum, and local-only (no network) is refused with its reason.
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "common/algorithms/hfl_sgdmf/in_process_run.h"
#include "common/algorithms/hfl_sgdmf/privacy.h"
#include "common/algorithms/hfl_sgdmf/run_config.h"
#include "common/algorithms/hfl_sgdmf/syn_step.h"
#include "common/algorithms/hfl_sgdmf/updater.h"
#include "common/algorithms/party_split.h"
#include "common/algorithms/registry.h"
#include "common/data/ratings_dataset.h"
#include "common/data/splits.h"
#include "common/dp/rdp_gaussian.h"
#include "common/dp/rng.h"
#include "gtest/gtest.h"
#include "tests/unit/algorithms/lib/fmf_party/party_rounds.h"
#include "tests/unit/algorithms/lib/fmf_sgd/test_data.h"

namespace fedmf::algorithms::hfl_sgdmf {
namespace {

constexpr int kUsers = 120;
constexpr int kItems = 40;
constexpr uint64_t kNoiseSeed = 77;

data::TrainTest Split(uint64_t seed) {
  return *data::SplitHoldoutPerUser(testing::LowRankDataset(kUsers, kItems, 15, seed), 0.1, seed);
}

v1::HflSgdmfConfig Config(int parties, absl::string_view mode) {
  v1::HflSgdmfConfig c;
  c.set_num_users(kUsers);
  c.set_num_items(kItems);
  c.set_num_parties(parties);
  c.set_rank(4);
  c.set_rating_max(5);
  c.set_max_ratings_per_user(5);
  c.set_sampling_rate(0.3);
  c.set_noise_multiplier(0.7);
  c.set_syncs(3);
  c.set_local_steps(4);
  c.set_pretrain_steps(10);
  c.set_finetune_steps(10);
  c.set_mode(std::string(mode));
  c.set_learning_rate(0.05);
  c.set_final_learning_rate_fraction(0.5);
  c.set_init_prediction(3);
  c.set_seed(9);
  c.set_secure_sum(true);
  return c;
}

std::vector<std::shared_ptr<const PartyShard>> Shards(const data::TrainTest& split, int parties) {
  std::vector<std::shared_ptr<const PartyShard>> shards;
  for (int k = 0; k < parties; ++k) {
    shards.push_back(
        std::make_shared<const PartyShard>(*HorizontalParty(split.train, &split.test, k, parties)));
  }
  return shards;
}

// Party k's runtime generator as fedmf-client --insecure_noise_seed=kNoiseSeed keys it (participant
// id k + 1), which the in-process run gives party k.
std::vector<dp::Rng> PartyRngs(int parties) {
  std::vector<dp::Rng> rngs;
  for (int k = 0; k < parties; ++k) rngs.emplace_back(kNoiseSeed, static_cast<uint64_t>(k) + 1);
  return rngs;
}

// The networked run of 3 parties (3 syncs, then fine-tuning; syn-sgd: 12 syncs of one step) equals
// the in-process run: V after every sync is the in-process V up to the fixed point's rounding (s
// half units of 2^-40 per sync, carried through the next syncs' Lipschitz steps; syn-sgd: s half
// units of 2^-24 per gradient coordinate times gamma / (eta n) < 2e-3 per step: far below 1e-9),
// each party's fine-tuned U_k likewise, and the test MSE before and after fine-tuning and the train
// MSE after it up to the error codec's half unit.
TEST(HflSgdmfRuntimeTest, NetworkedRunEqualsInProcessRun) {
  const data::TrainTest split = Split(1);
  for (absl::string_view mode : {"pretrain-u", "train-both", "syn-sgd"}) {
    const v1::HflSgdmfConfig c = Config(3, mode);
    std::unique_ptr<HflSgdmfUpdater> updater = *HflSgdmfUpdater::Create(c);
    const auto shards = Shards(split, 3);
    std::vector<std::string> states(3);
    std::vector<dp::Rng> rngs = PartyRngs(3);
    for (int64_t round = 0; round < TotalRounds(c); ++round) {
      const testing::PartyRound r = testing::RunPartyRound(*updater, shards, states, rngs);
      ASSERT_TRUE(updater->ApplySum(r.sum, testing::PartyIds(3)).ok());
    }

    absl::StatusOr<HflRun> reference =
        RunInProcess(split.train, ToHflConfig(c), c.seed(), kNoiseSeed);
    ASSERT_TRUE(reference.ok()) << reference.status();
    EXPECT_LT((updater->Items() - reference->parties[0].items_before).cwiseAbs().maxCoeff(), 1e-9)
        << mode;
    EXPECT_GT(updater->Items().cwiseAbs().maxCoeff(), 0.1);
    for (int k = 0; k < 3; ++k) {
      EXPECT_LT(
          (testing::HeldAfter(states[k]) - reference->parties[k].users_after).cwiseAbs().maxCoeff(),
          1e-9)
          << mode << " party " << k;
    }
    const double tolerance = 3 * std::ldexp(0.5, -fmf_party::kErrorFractionBits) /
                                 static_cast<double>(split.test.num_ratings()) +
                             1e-9;
    ASSERT_TRUE(updater->TestMse().has_value());
    EXPECT_NEAR(*updater->TestMse(),
                MeanSquaredError(reference->parties, split.test, /*after_finetune=*/true).mse,
                tolerance)
        << mode;
    EXPECT_NEAR(*updater->TestMse(/*after_finetune=*/false),
                MeanSquaredError(reference->parties, split.test, /*after_finetune=*/false).mse,
                tolerance)
        << mode;
    // The train MSE after fine-tuning (the rate-tuning criterion) is fedmf-central's train_mse.
    ASSERT_TRUE(updater->TrainMse().has_value());
    EXPECT_NEAR(*updater->TrainMse(),
                MeanSquaredError(reference->parties, split.train, /*after_finetune=*/true).mse,
                3 * std::ldexp(0.5, -fmf_party::kErrorFractionBits) /
                        static_cast<double>(split.train.num_ratings()) +
                    1e-9)
        << mode;
    EXPECT_EQ(updater->round(), TotalRounds(c));
  }
}

// A round the coordinator retries is recomputed from the state's U_k before it with the same
// noise: the same upload. A party without its state after round 0, or two rounds behind, is
// refused; so are a participant id above s and a user.
TEST(HflSgdmfRuntimeTest, RetriedRoundUploadsTheSameVectorAndALostStateIsRefused) {
  const data::TrainTest split = Split(2);
  const v1::HflSgdmfConfig c = Config(2, "train-both");
  std::unique_ptr<HflSgdmfUpdater> updater = *HflSgdmfUpdater::Create(c);
  const auto shards = Shards(split, 2);
  std::vector<std::string> states(2);
  std::vector<dp::Rng> rngs = PartyRngs(2);
  const testing::PartyRound first = testing::RunPartyRound(*updater, shards, states, rngs);
  ASSERT_TRUE(updater->ApplySum(first.sum, testing::PartyIds(2)).ok());
  const std::vector<std::string> after_round_0 = states;
  const testing::PartyRound sync1 = testing::RunPartyRound(*updater, shards, states, rngs);
  // Round 1 again from the states after round 1 (a retry): the same uploads.
  const testing::PartyRound retry = testing::RunPartyRound(*updater, shards, states, rngs);
  EXPECT_EQ(retry.sum, sync1.sum);

  const std::unique_ptr<Contributor> contributor = *MakeContributor(*updater->Plan());
  LocalData data = LocalData::Party(shards[0]);
  data.participant_id = 1;
  absl::StatusOr<Contribution> lost = contributor->Contribute(data, "", rngs[0]);
  EXPECT_EQ(lost.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(lost.status().message().find("has no state for round 1"), std::string::npos)
      << lost.status();
  ASSERT_TRUE(updater->ApplySum(sync1.sum, testing::PartyIds(2)).ok());
  const std::unique_ptr<Contributor> round2 = *MakeContributor(*updater->Plan());
  EXPECT_EQ(round2->Contribute(data, after_round_0[0], rngs[0]).status().code(),
            absl::StatusCode::kFailedPrecondition);  // two rounds behind
  data.participant_id = 3;
  EXPECT_EQ(round2->Contribute(data, states[0], rngs[0]).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(round2->Contribute(LocalData::User({}), "", rngs[0]).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// A sync's entry is T' subsampled Gaussian steps (each user's ratings live on one party: the
// parties' steps do not compose); the final round adds no noise.
TEST(HflSgdmfRuntimeTest, EachSyncCostsOnePartysSteps) {
  const v1::HflSgdmfConfig c = Config(3, "pretrain-u");
  std::unique_ptr<HflSgdmfUpdater> updater = *HflSgdmfUpdater::Create(c);
  const std::vector<double> orders = {2, 8, 32};
  absl::StatusOr<std::optional<dp::LedgerEntry>> entry = updater->RoundPrivacy(3, orders);
  ASSERT_TRUE(entry.ok() && entry->has_value()) << entry.status();
  const dp::RdpCurve want = *dp::SubsampledGaussianCurve(c.sampling_rate(), c.noise_multiplier(),
                                                         c.local_steps(), orders);
  EXPECT_EQ((*entry)->rdp, want.values());
  EXPECT_EQ((*entry)->unit, dp::PrivacyUnit::kUser);
  EXPECT_EQ((*entry)->participants, 3);
  EXPECT_FALSE(RoundEntry(ToHflConfig(c), c.syncs(), 3, orders)->has_value());

  // syn-sgd: T T' rounds of one step each, then the final one.
  const v1::HflSgdmfConfig syn = Config(3, "syn-sgd");
  const int64_t steps = syn.syncs() * syn.local_steps();
  EXPECT_EQ(TotalRounds(syn), steps + 1);
  absl::StatusOr<std::optional<dp::LedgerEntry>> one =
      RoundEntry(ToHflConfig(syn), steps - 1, 3, orders);
  ASSERT_TRUE(one.ok() && one->has_value()) << one.status();
  EXPECT_EQ((*one)->rdp,
            dp::SubsampledGaussianCurve(syn.sampling_rate(), syn.noise_multiplier(), 1, orders)
                ->values());
  EXPECT_FALSE(RoundEntry(ToHflConfig(syn), steps, 3, orders)->has_value());
}

// syn-sgd's clamp lies beyond the largest noiseless gradient sum: every user sampled, no noise,
// embeddings at the clipping radius on one coordinate (<u, v> = R, u_0 = sqrt(R)) and every user
// rating item 0 with 0 gives item 0's coordinate 0 the worst case 2 R sqrt(R) n exactly.
TEST(HflSgdmfRuntimeTest, SynGradientClampBoundsTheNoiselessSum) {
  v1::HflSgdmfConfig c = Config(1, "syn-sgd");
  c.set_sampling_rate(1);
  c.set_noise_multiplier(0);
  const double r = c.rating_max();
  data::RatingsBuilder b;
  for (int i = 0; i < kUsers; ++i) b.AddUser(absl::StrCat(i));
  for (int j = 0; j < kItems; ++j) b.AddItem(absl::StrCat(j));
  for (int i = 0; i < kUsers; ++i) b.Add(absl::StrCat(i), "0", 0.0F, std::nullopt);
  const data::RatingsDataset worst = *std::move(b).Build();
  fmf_sgd::Embeddings model{Eigen::MatrixXd::Zero(kUsers, c.rank()),
                            Eigen::MatrixXd::Zero(kItems, c.rank())};
  model.users.col(0).setConstant(std::sqrt(r));
  model.items.col(0).setConstant(std::sqrt(r));
  dp::Rng rng(1, 2);
  const fmf_sgd::NoisyGradient g = *PartySynGradient(worst, ToHflConfig(c), model, rng);
  const double worst_case = 2 * r * std::sqrt(r) * kUsers;
  EXPECT_NEAR(g.items.cwiseAbs().maxCoeff(), worst_case, 1e-9 * worst_case);
  EXPECT_GE(SynGradientCodec(c)->party_bound, worst_case);
}

TEST(HflSgdmfRuntimeTest, LocalOnlyIsRefusedWithItsReason) {
  const absl::Status s = ValidateRunConfig(Config(2, "local-only"));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("fedmf-central --model=hfl-sgdmf"), std::string::npos) << s;
}

}  // namespace
}  // namespace fedmf::algorithms::hfl_sgdmf
