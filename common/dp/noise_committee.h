// A noise committee (docs/privacy-accounting.md section 4.11): the c users of a fixed population of
// participant ids 1..n that add the distributed discrete Gaussian noise of every sum, a public
// function of the run's seed, so every client and the coordinator derive the same committee from
// the plan: the c ids with the smallest SplitMix64 hash (hashing.h, stream kTagNoiseCommittee of
// the seed), ties to the smaller id. A uniformly random c-subset as far as SplitMix64 is a random
// function; public, so it is not a secret selection. The coordinator sets the seed and the ids,
// so it could steer the committee: section 4.11 says what the option assumes of it.
#ifndef FEDMF_COMMON_DP_NOISE_COMMITTEE_H_
#define FEDMF_COMMON_DP_NOISE_COMMITTEE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"

namespace fedmf::dp {

class NoiseCommittee {
 public:
  // InvalidArgument unless 1 <= parties <= users < 2^32.
  static absl::StatusOr<NoiseCommittee> Select(uint64_t seed, int64_t users, int64_t parties);

  // The members' participant ids, increasing.
  const std::vector<uint32_t>& members() const { return members_; }
  bool Contains(uint32_t participant_id) const;

 private:
  explicit NoiseCommittee(std::vector<uint32_t> members) : members_(std::move(members)) {}

  std::vector<uint32_t> members_;
};

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_NOISE_COMMITTEE_H_
