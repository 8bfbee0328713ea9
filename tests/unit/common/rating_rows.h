// Test helpers: a RatingRow's columns as vectors, to match with gmock's ElementsAre.
#ifndef FEDMF_TESTS_UNIT_COMMON_RATING_ROWS_H_
#define FEDMF_TESTS_UNIT_COMMON_RATING_ROWS_H_

#include <cstdint>
#include <vector>

#include "common/data/ratings_dataset.h"

namespace fedmf::data::test_util {

inline std::vector<int32_t> Indices(const RatingRow& row) {
  return std::vector<int32_t>(row.indices.begin(), row.indices.end());
}
inline std::vector<float> Ratings(const RatingRow& row) {
  return std::vector<float>(row.ratings.begin(), row.ratings.end());
}
inline std::vector<int64_t> Timestamps(const RatingRow& row) {
  return std::vector<int64_t>(row.timestamps.begin(), row.timestamps.end());
}

}  // namespace fedmf::data::test_util

#endif  // FEDMF_TESTS_UNIT_COMMON_RATING_ROWS_H_
