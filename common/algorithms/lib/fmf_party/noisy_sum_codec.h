// The fixed-point upload of a party's noisy gradient sum (HFL-synSGD): noiseless part bounded by
// `clean_bound` per coordinate plus N(0, sigma^2) noise, which is unbounded. Each party clamps
// every coordinate to [-B, B], B = clean_bound + kNoiseTailStddevs sigma, and counts the clamped
// ones: a coordinate saturates only when its noise exceeds kNoiseTailStddevs sigma, probability
// erfc(kNoiseTailStddevs / sqrt 2) < 4e-33 per coordinate. Clamping the party's own noisy output is
// post-processing: its privacy is unchanged. The sum of s clamped uploads never wraps.
#ifndef FEDMF_COMMON_ALGORITHMS_LIB_FMF_PARTY_NOISY_SUM_CODEC_H_
#define FEDMF_COMMON_ALGORITHMS_LIB_FMF_PARTY_NOISY_SUM_CODEC_H_

#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/algorithms/lib/fmf_party/fixed_point_codec.h"

namespace fedmf::algorithms::fmf_party {

inline constexpr double kNoiseTailStddevs = 12;
// Gradient sums are O(1) to O(10^4): 2^-25 rounding per party is far below the noise.
inline constexpr int kGradientFractionBits = 24;

struct NoisySumCodec {
  Codec codec;             // of the sum of s clamped uploads
  double party_bound = 0;  // B: each party's coordinates are clamped to [-B, B]
};

// InvalidArgument for a non-finite or negative bound or stddev, or a sum needing over 62 bits.
absl::StatusOr<NoisySumCodec> MakeNoisySumCodec(double clean_bound, double noise_stddev,
                                                int64_t parties);

struct SaturatedUpload {
  std::vector<uint64_t> encoded;
  int64_t saturated = 0;  // coordinates clamped to +-B
};

// Clamps to [-B, B], then Encode; InvalidArgument for a NaN.
absl::StatusOr<SaturatedUpload> EncodeSaturating(const NoisySumCodec& codec,
                                                 const Eigen::Ref<const Eigen::VectorXd>& values);

}  // namespace fedmf::algorithms::fmf_party

#endif  // FEDMF_COMMON_ALGORITHMS_LIB_FMF_PARTY_NOISY_SUM_CODEC_H_
