#include "common/algorithms/lib/fmf_party/fixed_point_codec.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/dp/fixed_point.h"

namespace fedmf::algorithms::fmf_party {

absl::StatusOr<Codec> MakeCodec(double largest_real, int fraction_bits, int64_t parties) {
  Codec codec;
  codec.fraction_bits = fraction_bits;
  codec.range =
      std::ceil(std::ldexp(largest_real, fraction_bits) + static_cast<double>(parties) / 2);
  absl::StatusOr<int> bits = dp::ModulusBitsForRange(codec.range);
  if (!bits.ok()) return bits.status();
  codec.bits = *bits;
  return codec;
}

absl::StatusOr<Codec> EmbeddingAverageCodec(double rating_max, int64_t parties) {
  return MakeCodec(std::sqrt(rating_max), kEmbeddingFractionBits, parties);
}

absl::StatusOr<Codec> ErrorSumCodec(int64_t users, int64_t items, double rating_max,
                                     int64_t parties) {
  const double ratings = static_cast<double>(users) * static_cast<double>(items);
  return MakeCodec(ratings * (rating_max * rating_max + 1), kErrorFractionBits, parties);
}

absl::StatusOr<std::vector<uint64_t>> Encode(const Codec& codec,
                                             const Eigen::Ref<const Eigen::VectorXd>& values) {
  std::vector<uint64_t> out(static_cast<size_t>(values.size()));
  for (Eigen::Index k = 0; k < values.size(); ++k) {
    const double scaled = std::round(std::ldexp(values[k], codec.fraction_bits));
    if (!(std::abs(scaled) <= codec.range)) {
      return absl::OutOfRangeError(absl::StrCat("fixed-point upload: value ", values[k], " at ", k,
                                                " is outside the codec's range"));
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

}  // namespace fedmf::algorithms::fmf_party
