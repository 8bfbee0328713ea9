#include "common/mf/factor_model.h"

#include <random>

namespace fedmf::mf {

double FactorModel::Predict(int32_t user, int32_t item) const {
  double r = global_mean + user_factors.row(user).dot(item_factors.row(item));
  if (user_bias.size() > 0) r += user_bias[user];
  if (item_bias.size() > 0) r += item_bias[item];
  return r;
}

void FactorModel::ScoreUser(int32_t user, absl::Span<double> scores) const {
  Eigen::Map<Eigen::VectorXd> out(scores.data(), static_cast<Eigen::Index>(scores.size()));
  out.noalias() = item_factors * user_factors.row(user).transpose();
  double offset = global_mean;
  if (user_bias.size() > 0) offset += user_bias[user];
  out.array() += offset;
  if (item_bias.size() > 0) out += item_bias;
}

FactorMatrix RandomFactors(int64_t rows, int rank, double scale, uint64_t seed) {
  std::mt19937_64 bits(seed);
  FactorMatrix factors(rows, rank);
  for (int64_t r = 0; r < rows; ++r) {
    for (int c = 0; c < rank; ++c) {
      const double unit = static_cast<double>(bits() >> 11) * 0x1.0p-53;  // uniform [0, 1)
      factors(r, c) = scale * (2 * unit - 1);
    }
  }
  return factors;
}

}  // namespace fedmf::mf
