// The fixed-point vectors of the FMF privacy paper's cross-silo parties (dp/fixed_point.h): each
// of s parties uploads values rounded to nearest at scale 2^fraction_bits, mod 2^bits, sized so
// that a valid sum of the s uploads never wraps. A sync's upload is a weighted embedding matrix
// (weights summing to 1, entries in [0, sqrt(R)] by embedding clipping), flattened row by row.
#ifndef FEDMF_COMMON_ALGORITHMS_LIB_FMF_PARTY_FIXED_POINT_CODEC_H_
#define FEDMF_COMMON_ALGORITHMS_LIB_FMF_PARTY_FIXED_POINT_CODEC_H_

#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace fedmf::algorithms::fmf_party {

struct Codec {
  int fraction_bits = 0;
  double range = 0;  // integer range [-range, range] of a valid sum
  int bits = 0;      // the sum lives in Z_{2^bits}
};

inline constexpr int kEmbeddingFractionBits = 40;
inline constexpr int kErrorFractionBits = 16;

// A sync's codec: a weighted average of embedding matrices, entries in [0, sqrt(R)] (embedding
// clipping, weights summing to 1), at scale 2^kEmbeddingFractionBits.
absl::StatusOr<Codec> EmbeddingAverageCodec(double rating_max, int64_t parties);
// A final round's codec (party_error.h): squared errors (at most R^2 + 1 per rating, at most
// users * items ratings) and rating counts, at scale 2^kErrorFractionBits.
absl::StatusOr<Codec> ErrorSumCodec(int64_t users, int64_t items, double rating_max,
                                     int64_t parties);

// The codec of a sum whose real value lies in [-largest_real, largest_real], of `parties`
// uploads each rounded by at most half a unit; InvalidArgument if it needs more than 62 bits.
absl::StatusOr<Codec> MakeCodec(double largest_real, int fraction_bits, int64_t parties);

// Round to nearest at the codec's scale, mod 2^bits; OutOfRange for a value whose magnitude
// exceeds what one party may send (the range), e.g. a non-finite one.
absl::StatusOr<std::vector<uint64_t>> Encode(const Codec& codec,
                                             const Eigen::Ref<const Eigen::VectorXd>& values);
// The real sum (dp::DecodeCheckedSum): OutOfRange when a coordinate may have wrapped.
absl::StatusOr<Eigen::VectorXd> Decode(const Codec& codec, absl::Span<const uint64_t> sum);

// A rows x cols matrix as the vector of its values, row by row, and back.
Eigen::VectorXd FlattenRows(const Eigen::MatrixXd& matrix);
Eigen::MatrixXd UnflattenRows(const Eigen::VectorXd& values, int64_t rows, int64_t cols);

}  // namespace fedmf::algorithms::fmf_party

#endif  // FEDMF_COMMON_ALGORITHMS_LIB_FMF_PARTY_FIXED_POINT_CODEC_H_
