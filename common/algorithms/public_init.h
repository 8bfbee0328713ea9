// Public, data-independent initial factors: a rows x cols matrix of i.i.d. N(0, scale^2) drawn
// from dp::Rng(seed, stream), the same in every binary, so a server and its clients (and a
// central baseline) start from the same V_0 and u_i^0 at no privacy cost.
#ifndef FEDMF_COMMON_ALGORITHMS_PUBLIC_INIT_H_
#define FEDMF_COMMON_ALGORITHMS_PUBLIC_INIT_H_

#include <cstdint>

#include "Eigen/Core"

namespace fedmf::algorithms {

// Row-major draw order: entry (i, j) is draw i * cols + j.
Eigen::MatrixXd PublicNormalMatrix(int64_t rows, int64_t cols, double scale, uint64_t seed,
                                   uint64_t stream);

}  // namespace fedmf::algorithms

#endif  // FEDMF_COMMON_ALGORITHMS_PUBLIC_INIT_H_
