// The public starting point HFL-SGDMF's parties and coordinator share, in process
// (in_process_run.h) and on the runtime (contributor.h, updater.h): the initial U and V from
// dp::Rng(seed, 1) as fmf_sgd's central run draws them (U first, then V), and the public seed of
// party k's trimming to theta ratings per user.
#ifndef FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_INITIAL_EMBEDDINGS_H_
#define FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_INITIAL_EMBEDDINGS_H_

#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/algorithms/hfl_sgdmf/config.h"

namespace fedmf::algorithms::hfl_sgdmf {

struct InitialModel {
  Eigen::MatrixXd users;  // n x p
  Eigen::MatrixXd items;  // m x p
};
absl::StatusOr<InitialModel> InitialEmbeddings(uint64_t seed, const HflConfig& config,
                                               int32_t num_users, int32_t num_items);

// The rows `global_users` of the initial U; InvalidArgument for a user outside [0, num_users).
absl::StatusOr<Eigen::MatrixXd> InitialPartyUsers(uint64_t seed, const HflConfig& config,
                                                  int32_t num_users,
                                                  const std::vector<int32_t>& global_users);

inline uint64_t PartyTrimSeed(uint64_t seed, int32_t party) {
  return seed + static_cast<uint64_t>(party);
}

}  // namespace fedmf::algorithms::hfl_sgdmf

#endif  // FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_INITIAL_EMBEDDINGS_H_
