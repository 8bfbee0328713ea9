// VFL-SGDMF's fixed-point vectors (dp/fixed_point.h), so a sum of the s parties' vectors mod 2^b
// never wraps. Sync rounds: each party uploads (m_k / m) U^(k) rounded to nearest at scale
// 2^kUserFractionBits; embedding clipping keeps every entry of U^(k) in [0, sqrt(R)], so a valid
// sum lies in [0, sqrt(R) 2^f + s / 2] (sum_k m_k / m = 1, half a unit of rounding per party).
// Final round: its test squared error and test ratings at scale 2^kErrorFractionBits, each rating
// counting at most R^2 + 1 and at most n m ratings in all.
#ifndef FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_CODEC_H_
#define FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_CODEC_H_

#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "fedmf/v1/vfl_sgdmf.pb.h"

namespace fedmf::algorithms::vfl_sgdmf {

inline constexpr int kUserFractionBits = 40;
inline constexpr int kErrorFractionBits = 16;

struct Codec {
  int fraction_bits = 0;
  double range = 0;  // integer range [-range, range] of a valid sum
  int bits = 0;      // the sum lives in Z_{2^bits}
};

// The codec of `round` (IsFinalRound picks the error codec); InvalidArgument if it needs more
// than 62 bits.
absl::StatusOr<Codec> RoundCodec(const v1::VflSgdmfConfig& config, int64_t round);

// Round to nearest at the codec's scale, mod 2^bits; OutOfRange for a value whose magnitude
// exceeds what one party may send (the range), e.g. a non-finite one.
absl::StatusOr<std::vector<uint64_t>> Encode(const Codec& codec,
                                             const Eigen::Ref<const Eigen::VectorXd>& values);
// The real sum (dp::DecodeCheckedSum): OutOfRange when a coordinate may have wrapped.
absl::StatusOr<Eigen::VectorXd> Decode(const Codec& codec, absl::Span<const uint64_t> sum);

// U (n x p) as the sync vector's n p values, row by row, and back.
Eigen::VectorXd FlattenRows(const Eigen::MatrixXd& matrix);
Eigen::MatrixXd UnflattenRows(const Eigen::VectorXd& values, int64_t rows, int64_t cols);

}  // namespace fedmf::algorithms::vfl_sgdmf

#endif  // FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_CODEC_H_
