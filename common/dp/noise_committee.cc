#include "common/dp/noise_committee.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/dp/hashing.h"

namespace fedmf::dp {

absl::StatusOr<NoiseCommittee> NoiseCommittee::Select(uint64_t seed, int64_t users,
                                                      int64_t parties) {
  if (users < 1 || users > std::numeric_limits<uint32_t>::max() || parties < 1 || parties > users) {
    return absl::InvalidArgumentError(absl::StrCat("noise committee: ", parties, " members of ",
                                                   users,
                                                   " users; need 1 <= members <= users < 2^32"));
  }
  const uint64_t key = DeriveStreamKey(seed, kTagNoiseCommittee);
  std::vector<std::pair<uint64_t, uint32_t>> ranked;
  ranked.reserve(static_cast<size_t>(users));
  for (int64_t id = 1; id <= users; ++id) {
    ranked.emplace_back(SplitMix64At(key, static_cast<uint64_t>(id)), static_cast<uint32_t>(id));
  }
  const auto last = ranked.begin() + parties;
  std::nth_element(ranked.begin(), last - 1, ranked.end());
  std::vector<uint32_t> members;
  members.reserve(static_cast<size_t>(parties));
  for (auto it = ranked.begin(); it != last; ++it) members.push_back(it->second);
  std::sort(members.begin(), members.end());
  return NoiseCommittee(std::move(members));
}

bool NoiseCommittee::Contains(uint32_t participant_id) const {
  return std::binary_search(members_.begin(), members_.end(), participant_id);
}

}  // namespace fedmf::dp
