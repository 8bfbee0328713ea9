// Shared by the cross-silo FMF contract tests (vfl_sgdmf/vfl_sgdmf_test, hfl_sgdmf/runtime_test):
// every party of a run contributes to the updater's planned round, as the runtime would, and a
// party's persisted state (fedmf.v1.FmfPartyState) is read back.
#ifndef FEDMF_TESTS_UNIT_ALGORITHMS_LIB_FMF_PARTY_PARTY_ROUNDS_H_
#define FEDMF_TESTS_UNIT_ALGORITHMS_LIB_FMF_PARTY_PARTY_ROUNDS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "common/algorithms/algorithm.h"
#include "common/algorithms/contribution_vector.h"
#include "common/algorithms/local_data.h"
#include "common/algorithms/registry.h"
#include "common/dp/rng.h"
#include "fedmf/v1/fmf_party.pb.h"
#include "gtest/gtest.h"

namespace fedmf::testing {

struct PartyRound {
  std::vector<uint64_t> sum;
  std::vector<algorithms::Contribution> contributions;
};

// Party k (participant id k + 1) contributes from states[k] with rngs[k]; states are updated.
inline PartyRound RunPartyRound(
    const algorithms::Updater& updater,
    const std::vector<std::shared_ptr<const algorithms::PartyShard>>& shards,
    std::vector<std::string>& states, std::vector<dp::Rng>& rngs) {
  const v1::RoundPlan plan = *updater.Plan();
  const std::unique_ptr<algorithms::Contributor> contributor = *algorithms::MakeContributor(plan);
  PartyRound round;
  round.sum.assign(plan.length(), 0);
  for (size_t k = 0; k < shards.size(); ++k) {
    algorithms::LocalData data = algorithms::LocalData::Party(shards[k]);
    data.participant_id = static_cast<uint32_t>(k + 1);
    absl::StatusOr<algorithms::Contribution> c = contributor->Contribute(data, states[k], rngs[k]);
    EXPECT_TRUE(c.ok()) << c.status();
    EXPECT_TRUE(algorithms::AddModPow2(c->vector, plan.bits(), absl::MakeSpan(round.sum)).ok());
    states[k] = c->state;
    round.contributions.push_back(*std::move(c));
  }
  return round;
}

// Participant ids 1..parties.
inline std::vector<uint32_t> PartyIds(int parties) {
  std::vector<uint32_t> ids;
  for (int k = 1; k <= parties; ++k) ids.push_back(static_cast<uint32_t>(k));
  return ids;
}

inline v1::FmfPartyState ParsePartyState(const std::string& bytes) {
  v1::FmfPartyState state;
  EXPECT_TRUE(state.ParseFromString(bytes));
  return state;
}

// The party-held embeddings after its last round.
inline Eigen::MatrixXd HeldAfter(const std::string& bytes) {
  const v1::FmfPartyState s = ParsePartyState(bytes);
  return Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
      s.held_after().values().data(), s.held_after().rows(), s.held_after().cols());
}

}  // namespace fedmf::testing

#endif  // FEDMF_TESTS_UNIT_ALGORITHMS_LIB_FMF_PARTY_PARTY_ROUNDS_H_
