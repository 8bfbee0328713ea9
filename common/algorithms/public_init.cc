#include "common/algorithms/public_init.h"

#include "common/dp/rng.h"
#include "common/dp/samplers.h"

namespace fedmf::algorithms {

Eigen::MatrixXd PublicNormalMatrix(int64_t rows, int64_t cols, double scale, uint64_t seed,
                                   uint64_t stream) {
  dp::Rng rng(seed, stream);
  Eigen::MatrixXd m(rows, cols);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) m(i, j) = scale * dp::StandardNormal(rng);
  }
  return m;
}

}  // namespace fedmf::algorithms
