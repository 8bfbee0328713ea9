#include "common/algorithms/vfl_sgdmf/codec.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/algorithms/vfl_sgdmf/config.h"
#include "common/dp/fixed_point.h"

namespace fedmf::algorithms::vfl_sgdmf {

absl::StatusOr<Codec> RoundCodec(const v1::VflSgdmfConfig& config, int64_t round) {
  Codec codec;
  const double parties = config.num_parties();
  double largest_real = 0;  // of a valid sum
  if (IsFinalRound(config, round)) {
    codec.fraction_bits = kErrorFractionBits;
    const double ratings = static_cast<double>(config.num_users()) * config.num_items();
    largest_real = ratings * (config.rating_max() * config.rating_max() + 1);
  } else {
    codec.fraction_bits = kUserFractionBits;
    largest_real = std::sqrt(config.rating_max());
  }
  codec.range = std::ceil(std::ldexp(largest_real, codec.fraction_bits) + parties / 2);
  absl::StatusOr<int> bits = dp::ModulusBitsForRange(codec.range);
  if (!bits.ok()) return bits.status();
  codec.bits = *bits;
  return codec;
}

absl::StatusOr<std::vector<uint64_t>> Encode(const Codec& codec,
                                             const Eigen::Ref<const Eigen::VectorXd>& values) {
  std::vector<uint64_t> out(static_cast<size_t>(values.size()));
  for (Eigen::Index k = 0; k < values.size(); ++k) {
    const double scaled = std::round(std::ldexp(values[k], codec.fraction_bits));
    if (!(std::abs(scaled) <= codec.range)) {
      return absl::OutOfRangeError(
          absl::StrCat("vfl-sgdmf: value ", values[k], " at ", k, " is outside the codec's range"));
    }
    out[static_cast<size_t>(k)] = dp::ReduceModPow2(static_cast<int64_t>(scaled), codec.bits);
  }
  return out;
}

absl::StatusOr<Eigen::VectorXd> Decode(const Codec& codec, absl::Span<const uint64_t> sum) {
  return dp::DecodeCheckedSum(sum, codec.bits, codec.range, std::ldexp(1.0, codec.fraction_bits));
}

Eigen::VectorXd FlattenRows(const Eigen::MatrixXd& matrix) {
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const RowMajor rows = matrix;
  return Eigen::Map<const Eigen::VectorXd>(rows.data(), rows.size());
}

Eigen::MatrixXd UnflattenRows(const Eigen::VectorXd& values, int64_t rows, int64_t cols) {
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  return Eigen::Map<const RowMajor>(values.data(), rows, cols);
}

}  // namespace fedmf::algorithms::vfl_sgdmf
