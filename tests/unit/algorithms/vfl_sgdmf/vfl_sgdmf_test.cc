// VFL-SGDMF through the algorithm contract (updater + contributor), against independent
// references: one party is fmf_sgd's central DP-SGD run, the coordinator's U is the m_k / m
// weighted average of the parties' U^(k) recomputed step by step, a retried round uploads the
// same vector, and the ledger composes every party's every step; the local-only baseline is the
// central run at one party and is charged the federated run's steps.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "common/algorithms/lib/fmf_sgd/central_dp_sgd.h"
#include "common/algorithms/lib/fmf_sgd/dp_sgd_step.h"
#include "common/algorithms/lib/fmf_sgd/privacy.h"
#include "common/algorithms/party_split.h"
#include "common/algorithms/registry.h"
#include "common/algorithms/vfl_sgdmf/codec.h"
#include "common/algorithms/vfl_sgdmf/config.h"
#include "common/algorithms/vfl_sgdmf/contributor.h"
#include "common/algorithms/vfl_sgdmf/party_state.h"
#include "common/algorithms/vfl_sgdmf/privacy.h"
#include "common/algorithms/vfl_sgdmf/updater.h"
#include "common/data/splits.h"
#include "common/dp/privacy_ledger.h"
#include "common/dp/rng.h"
#include "fedmf/v1/fmf_party.pb.h"
#include "gtest/gtest.h"
#include "tests/unit/algorithms/lib/fmf_party/party_rounds.h"
#include "tests/unit/algorithms/lib/fmf_sgd/test_data.h"

namespace fedmf::algorithms::vfl_sgdmf {
namespace {

constexpr int kUsers = 200;
constexpr int kItems = 100;

data::TrainTest Split(uint64_t seed) {
  return *data::SplitHoldoutPerUser(testing::LowRankDataset(kUsers, kItems, 25, seed), 0.1, seed);
}

v1::VflSgdmfConfig Config(int parties) {
  v1::VflSgdmfConfig c;
  c.set_num_users(kUsers);
  c.set_num_items(kItems);
  c.set_num_parties(parties);
  c.set_rank(4);
  c.set_rating_max(5);
  c.set_max_ratings_per_user(5);
  c.set_sampling_rate(0.2);
  c.set_noise_multiplier(0.7);
  c.set_syncs(1);
  c.set_local_steps(30);
  c.set_learning_rate(0.05);
  c.set_final_learning_rate_fraction(0.5);
  c.set_init_prediction(3);
  c.set_seed(9);
  c.set_secure_sum(true);
  return c;
}

// Three parties, 4 syncs of 5 steps and 3 V-only steps: the ledger tests' run.
v1::VflSgdmfConfig LedgerConfig(bool per_user) {
  v1::VflSgdmfConfig c = Config(3);
  c.set_per_user(per_user);
  c.set_syncs(4);
  c.set_local_steps(5);
  c.set_item_only_steps(3);
  return c;
}

// Party k's shard of `split`, owning the items j with owner[j] == k.
std::vector<std::shared_ptr<const PartyShard>> Shards(const data::TrainTest& split,
                                                      const std::vector<int32_t>& owner,
                                                      int parties) {
  std::vector<std::shared_ptr<const PartyShard>> shards;
  for (int k = 0; k < parties; ++k) {
    shards.push_back(std::make_shared<const PartyShard>(
        *VerticalPartyOf(split.train, &split.test, owner, k, parties)));
  }
  return shards;
}

// One party, one sync of T' steps, no V-only steps: fmf_sgd's central run with the party's noise
// generator gives the same V bit for bit and the same U up to the fixed point's half unit, and the
// final round's test and train MSE are the central model's up to the error codec's rounding. Per
// rating and per user (trimmed alike).
TEST(VflSgdmfRunTest, OnePartyIsCentralDpSgd) {
  const data::TrainTest split = Split(1);
  for (bool per_user : {false, true}) {
    v1::VflSgdmfConfig c = Config(1);
    c.set_per_user(per_user);
    c.set_secure_sum(false);
    std::unique_ptr<VflSgdmfUpdater> updater = *VflSgdmfUpdater::Create(c);
    const auto shards = Shards(split, std::vector<int32_t>(kItems, 0), 1);
    std::vector<std::string> states(1);
    std::vector<dp::Rng> rngs;
    rngs.emplace_back(77);
    testing::PartyRound sync = testing::RunPartyRound(*updater, shards, states, rngs);
    ASSERT_TRUE(updater->ApplySum(sync.sum, testing::PartyIds(1)).ok());
    const testing::PartyRound final_round = testing::RunPartyRound(*updater, shards, states, rngs);
    ASSERT_TRUE(updater->ApplySum(final_round.sum, testing::PartyIds(1)).ok());

    const v1::FmfPartyState party = testing::ParsePartyState(states[0]);
    const uint64_t key[2] = {party.noise_key_0(), party.noise_key_1()};
    dp::Rng central_rng = RoundNoiseRng(key, 0);
    const fmf_sgd::CentralRun central =
        *fmf_sgd::TrainCentralDpSgdMf(split.train, StepConfig(c), c.seed(), central_rng);
    EXPECT_EQ(testing::HeldAfter(states[0]), central.model.items) << "per_user=" << per_user;
    EXPECT_LE((updater->Users() - central.model.users).cwiseAbs().maxCoeff(),
              std::ldexp(0.5, kUserFractionBits));
    ASSERT_TRUE(updater->TestMse().has_value());
    // The error sum is rounded to half a unit of 2^-kErrorFractionBits; U's rounding moves it less.
    const double tolerance = std::ldexp(0.5, -kErrorFractionBits) / split.test.num_ratings() + 1e-9;
    EXPECT_NEAR(*updater->TestMse(), fmf_sgd::MeanSquaredError(split.test, central.model),
                tolerance);
    // The train MSE is over every training rating, untrimmed even per user.
    ASSERT_TRUE(updater->TrainMse().has_value());
    EXPECT_NEAR(*updater->TrainMse(), fmf_sgd::MeanSquaredError(split.train, central.model),
                std::ldexp(0.5, -kErrorFractionBits) / split.train.num_ratings() + 1e-9);
    EXPECT_EQ(updater->round(), TotalRounds(c));
  }
}

// Local-only with one party: its one round (T T' steps of U and V, then kappa V-only steps) is
// fmf_sgd's central run bit for bit, with the party's noise generator; the plan carries nothing
// back but the error sums, and U is never averaged.
TEST(VflSgdmfRunTest, LocalOnlyPartyIsCentralDpSgdInOneRound) {
  const data::TrainTest split = Split(4);
  v1::VflSgdmfConfig c = Config(1);
  c.set_local_only(true);
  c.set_syncs(3);
  c.set_item_only_steps(4);
  c.set_secure_sum(false);
  std::unique_ptr<VflSgdmfUpdater> updater = *VflSgdmfUpdater::Create(c);
  EXPECT_EQ(TotalRounds(c), 1);
  EXPECT_EQ(updater->Plan()->length(), kFinalReportLength);
  const Eigen::MatrixXd initial_users = updater->Users();
  const auto shards = Shards(split, std::vector<int32_t>(kItems, 0), 1);
  std::vector<std::string> states(1);
  std::vector<dp::Rng> rngs;
  rngs.emplace_back(78);
  const testing::PartyRound only = testing::RunPartyRound(*updater, shards, states, rngs);
  ASSERT_TRUE(updater->ApplySum(only.sum, testing::PartyIds(1)).ok());
  EXPECT_EQ(updater->round(), TotalRounds(c));
  EXPECT_EQ(updater->Users(), initial_users);

  const v1::FmfPartyState party = testing::ParsePartyState(states[0]);
  const uint64_t key[2] = {party.noise_key_0(), party.noise_key_1()};
  dp::Rng central_rng = RoundNoiseRng(key, 0);
  const fmf_sgd::CentralRun central =
      *fmf_sgd::TrainCentralDpSgdMf(split.train, StepConfig(c), c.seed(), central_rng);
  EXPECT_EQ(testing::HeldAfter(states[0]), central.model.items);
  ASSERT_TRUE(updater->TestMse().has_value());
  const double tolerance = std::ldexp(0.5, -kErrorFractionBits) / split.test.num_ratings() + 1e-9;
  EXPECT_NEAR(*updater->TestMse(), fmf_sgd::MeanSquaredError(split.test, central.model), tolerance);
}

// Local-only runs every step of the federated run, so its one round costs what all of the
// federated rounds cost together (RDP adds up), per rating and per user.
TEST(VflSgdmfRunTest, LocalOnlyIsChargedTheFederatedRunsSteps) {
  const std::vector<double> orders = dp::DefaultOrders();
  for (bool per_user : {false, true}) {
    const v1::VflSgdmfConfig federated = LedgerConfig(per_user);
    std::vector<double> total(orders.size(), 0);
    std::unique_ptr<VflSgdmfUpdater> updater = *VflSgdmfUpdater::Create(federated);
    for (int64_t r = 0; r < TotalRounds(federated); ++r) {
      const dp::LedgerEntry entry = **updater->RoundPrivacy(3, orders);
      for (size_t a = 0; a < orders.size(); ++a) total[a] += entry.rdp[a];
      const v1::RoundPlan plan = *updater->Plan();
      ASSERT_TRUE(
          updater->ApplySum(std::vector<uint64_t>(plan.length(), 0), testing::PartyIds(3)).ok());
    }
    v1::VflSgdmfConfig local = federated;
    local.set_local_only(true);
    const dp::LedgerEntry one = **(*VflSgdmfUpdater::Create(local))->RoundPrivacy(3, orders);
    for (size_t a = 0; a < orders.size(); ++a) {
      EXPECT_NEAR(one.rdp[a], total[a], 1e-9 * (1 + total[a]))
          << "per_user=" << per_user << " order " << orders[a];
    }
  }
}

// Three parties owning 10, 30 and 60 items: the coordinator's U after a sync is
// sum_k (m_k / m) U^(k), each U^(k) recomputed here by fmf_sgd's steps from the public start with
// the party's own noise; the unweighted mean is far from it (the weights matter).
TEST(VflSgdmfRunTest, UIsTheItemWeightedAverage) {
  const data::TrainTest split = Split(2);
  std::vector<int32_t> owner(kItems);
  for (int j = 0; j < kItems; ++j) owner[j] = j < 10 ? 0 : (j < 40 ? 1 : 2);
  const v1::VflSgdmfConfig c = Config(3);
  std::unique_ptr<VflSgdmfUpdater> updater = *VflSgdmfUpdater::Create(c);
  const auto shards = Shards(split, owner, 3);
  std::vector<std::string> states(3);
  std::vector<dp::Rng> rngs;
  for (int k = 0; k < 3; ++k) rngs.emplace_back(100 + k);
  const Eigen::MatrixXd start = updater->Users();
  const testing::PartyRound sync = testing::RunPartyRound(*updater, shards, states, rngs);
  ASSERT_TRUE(updater->ApplySum(sync.sum, testing::PartyIds(3)).ok());

  const double sizes[3] = {10, 30, 60};
  Eigen::MatrixXd weighted = Eigen::MatrixXd::Zero(kUsers, c.rank());
  Eigen::MatrixXd mean = Eigen::MatrixXd::Zero(kUsers, c.rank());
  for (int k = 0; k < 3; ++k) {
    const v1::FmfPartyState party = testing::ParsePartyState(states[k]);
    const uint64_t key[2] = {party.noise_key_0(), party.noise_key_1()};
    dp::Rng noise = RoundNoiseRng(key, 0);
    fmf_sgd::Embeddings model{start, *InitialPartyItems(c, shards[k]->global_items)};
    ASSERT_TRUE(fmf_sgd::RunNoisySteps(
                    *shards[k]->train, StepConfig(c), 0, c.local_steps(), true, sizes[k] / kItems,
                    noise, model,
                    [](int64_t, const fmf_sgd::NoisyGradient&) { return absl::OkStatus(); })
                    .ok());
    EXPECT_EQ(model.items, testing::HeldAfter(states[k]));
    weighted += sizes[k] / kItems * model.users;
    mean += model.users / 3;
  }
  const double quantum = std::ldexp(1.0, -kUserFractionBits);
  EXPECT_LE((updater->Users() - weighted).cwiseAbs().maxCoeff(), 3 * quantum);
  EXPECT_GT((updater->Users() - mean).cwiseAbs().maxCoeff(), 1e-3);
}

// A round the coordinator retries is recomputed from the state's V before it with the same noise:
// the same upload. A state two rounds behind, or none after round 0, is refused; so are a party
// id above s and a user.
TEST(VflSgdmfRunTest, RetriedRoundUploadsTheSameVector) {
  const data::TrainTest split = Split(3);
  v1::VflSgdmfConfig c = Config(2);
  c.set_syncs(3);
  std::unique_ptr<VflSgdmfUpdater> updater = *VflSgdmfUpdater::Create(c);
  std::vector<int32_t> owner(kItems);
  for (int j = 0; j < kItems; ++j) owner[j] = j % 2;
  const auto two = Shards(split, owner, 2);
  std::vector<std::string> states(2);
  std::vector<dp::Rng> rngs;
  for (int k = 0; k < 2; ++k) rngs.emplace_back(7 + k);
  const testing::PartyRound first = testing::RunPartyRound(*updater, two, states, rngs);
  const std::vector<std::string> after_round_0 = states;
  const testing::PartyRound retried =
      testing::RunPartyRound(*updater, two, states, rngs);  // round 0 again
  EXPECT_EQ(first.sum, retried.sum);
  ASSERT_TRUE(updater->ApplySum(retried.sum, testing::PartyIds(2)).ok());
  ASSERT_TRUE(
      updater
          ->ApplySum(testing::RunPartyRound(*updater, two, states, rngs).sum, testing::PartyIds(2))
          .ok());

  // Round 2 planned: the state of round 0 is behind, an empty one lost.
  const std::unique_ptr<Contributor> contributor = *MakeContributor(*updater->Plan());
  LocalData data = LocalData::Party(two[0]);
  data.participant_id = 1;
  EXPECT_EQ(contributor->Contribute(data, after_round_0[0], rngs[0]).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(contributor->Contribute(data, "", rngs[0]).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(contributor->Contribute(data, states[0], rngs[0]).ok());
  // A third party in a run of two (its id is above s) is refused, and users are not parties.
  data.participant_id = 3;
  EXPECT_EQ(contributor->Contribute(data, states[0], rngs[0]).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      contributor->Contribute(LocalData::User(split.train.user(0)), "", rngs[0]).status().code(),
      absl::StatusCode::kInvalidArgument);
}

// Per user, a sync's entry is the composition of s T' single steps (fmf_sgd's step curve added
// up on a ledger); per rating, of T' (a rating is on one party). The calibrated z makes the
// whole run's ledger fit the budget exactly: 1% less noise does not.
TEST(VflSgdmfRunTest, LedgerComposesEveryPartysSteps) {
  for (bool per_user : {false, true}) {
    v1::VflSgdmfConfig c = LedgerConfig(per_user);
    c.set_budget_epsilon(2);
    c.set_budget_delta(1e-5);
    c.set_noise_multiplier(*CalibrateNoiseMultiplier(c));
    std::unique_ptr<VflSgdmfUpdater> updater = *VflSgdmfUpdater::Create(c);
    const std::vector<double> orders = dp::DefaultOrders();
    dp::PrivacyLedger steps = *dp::PrivacyLedger::Create();
    const dp::RdpCurve one = *fmf_sgd::StepCurve(StepConfig(c), orders);
    const int copies = per_user ? 3 : 1;
    for (int k = 0; k < copies * c.local_steps(); ++k) {
      ASSERT_TRUE(steps.Append(*fmf_sgd::StepEntry(StepConfig(c), true, 0, 1, one)).ok());
    }
    const dp::LedgerEntry sync = **updater->RoundPrivacy(3, orders);
    ASSERT_EQ(sync.rdp.size(), orders.size());
    for (size_t a = 0; a < orders.size(); ++a) {
      EXPECT_NEAR(sync.rdp[a], steps.spent().rdp().values()[a], 1e-9 * (1 + sync.rdp[a]))
          << "per_user=" << per_user << " order " << orders[a];
    }
    dp::PrivacyLedger run = *dp::PrivacyLedger::Create();
    for (int64_t r = 0; r < TotalRounds(c); ++r) {
      const std::optional<dp::LedgerEntry> entry = *updater->RoundPrivacy(3, orders);
      ASSERT_TRUE(entry.has_value());
      EXPECT_TRUE(*run.CanAfford(*entry, *updater->budget()));
      ASSERT_TRUE(run.Append(*entry).ok());
      const v1::RoundPlan plan = *updater->Plan();
      ASSERT_TRUE(
          updater->ApplySum(std::vector<uint64_t>(plan.length(), 0), testing::PartyIds(3)).ok());
    }
    v1::VflSgdmfConfig less = c;
    less.set_noise_multiplier(0.99 * c.noise_multiplier());
    std::unique_ptr<VflSgdmfUpdater> cheaper = *VflSgdmfUpdater::Create(less);
    dp::PrivacyLedger over = *dp::PrivacyLedger::Create();
    bool fits = true;
    for (int64_t r = 0; r < TotalRounds(less) && fits; ++r) {
      const dp::LedgerEntry entry = **cheaper->RoundPrivacy(3, orders);
      fits = *over.CanAfford(entry, *cheaper->budget());
      ASSERT_TRUE(over.Append(entry).ok());
      const v1::RoundPlan plan = *cheaper->Plan();
      ASSERT_TRUE(
          cheaper->ApplySum(std::vector<uint64_t>(plan.length(), 0), testing::PartyIds(3)).ok());
    }
    EXPECT_FALSE(fits) << "per_user=" << per_user;
  }
}

}  // namespace
}  // namespace fedmf::algorithms::vfl_sgdmf
