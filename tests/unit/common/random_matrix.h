// Test helper: a matrix of independent standard normal entries drawn from the test's Rng (inputs
// of the projection tests).
#ifndef FEDMF_TESTS_UNIT_COMMON_RANDOM_MATRIX_H_
#define FEDMF_TESTS_UNIT_COMMON_RANDOM_MATRIX_H_

#include <cstdint>

#include "Eigen/Core"
#include "common/dp/rng.h"
#include "common/dp/samplers.h"

namespace fedmf::dp::testing {

inline Eigen::MatrixXd RandomMatrix(int64_t rows, int64_t cols, Rng& rng) {
  Eigen::MatrixXd x(rows, cols);
  for (int64_t i = 0; i < x.size(); ++i) x.data()[i] = StandardNormal(rng);
  return x;
}

}  // namespace fedmf::dp::testing

#endif  // FEDMF_TESTS_UNIT_COMMON_RANDOM_MATRIX_H_
