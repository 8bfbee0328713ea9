// Test helper: the participant ids 1..n, e.g. the contributors of a sum of n vectors.
#ifndef FEDMF_TESTS_UNIT_PARTICIPANT_IDS_H_
#define FEDMF_TESTS_UNIT_PARTICIPANT_IDS_H_

#include <cstdint>
#include <vector>

namespace fedmf::test_util {

inline std::vector<uint32_t> ParticipantIds(int64_t n) {
  std::vector<uint32_t> ids;
  for (int64_t id = 1; id <= n; ++id) ids.push_back(static_cast<uint32_t>(id));
  return ids;
}

}  // namespace fedmf::test_util

#endif  // FEDMF_TESTS_UNIT_PARTICIPANT_IDS_H_
