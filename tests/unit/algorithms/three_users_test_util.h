// Three users' ratings over six items, as a participant holds them (LocalData with its id), for
// the tests of algorithms whose users keep their own factor (ldp-gd, hdpmf).
#ifndef FEDMF_TESTS_UNIT_ALGORITHMS_THREE_USERS_TEST_UTIL_H_
#define FEDMF_TESTS_UNIT_ALGORITHMS_THREE_USERS_TEST_UTIL_H_

#include <cstdint>

#include "common/algorithms/local_data.h"

namespace fedmf::test_util {

// User i rates kItems[i] (ascending) with kRatings[i].
inline constexpr int32_t kItems[3][3] = {{0, 2, 5}, {1, 2, 3}, {0, 4, 5}};
inline constexpr float kRatings[3][3] = {{5, 3, 1}, {4, 4, 2}, {1, 5, 3}};

// User i (0, 1 or 2) as participant i + 1.
inline algorithms::LocalData User(int i) {
  algorithms::LocalData data = algorithms::LocalData::User({kItems[i], kRatings[i], {}});
  data.participant_id = static_cast<uint32_t>(i + 1);
  return data;
}

}  // namespace fedmf::test_util

#endif  // FEDMF_TESTS_UNIT_ALGORITHMS_THREE_USERS_TEST_UTIL_H_
