// VFL-SGDMF's fixed-point vectors (lib/fmf_party/fixed_point_codec.h), so a sum of the s parties'
// vectors mod 2^b never wraps. Sync rounds: each party uploads (m_k / m) U^(k) rounded to nearest
// at scale 2^kUserFractionBits; embedding clipping keeps every entry of U^(k) in [0, sqrt(R)], so a
// valid sum lies in [0, sqrt(R) 2^f + s / 2] (sum_k m_k / m = 1, half a unit of rounding per
// party). Final round: its test and training squared errors and rating counts
// (lib/fmf_party/party_error.h) at scale 2^kErrorFractionBits, each rating counting at most R^2 + 1
// and at most n m ratings in all.
#ifndef FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_CODEC_H_
#define FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_CODEC_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "common/algorithms/lib/fmf_party/fixed_point_codec.h"
#include "fedmf/v1/vfl_sgdmf.pb.h"

namespace fedmf::algorithms::vfl_sgdmf {

inline constexpr int kUserFractionBits = fmf_party::kEmbeddingFractionBits;
using fmf_party::kErrorFractionBits;

using fmf_party::Codec;
using fmf_party::Decode;
using fmf_party::Encode;
using fmf_party::FlattenRows;
using fmf_party::UnflattenRows;

// The codec of `round` (IsFinalRound picks the error codec); InvalidArgument if it needs more
// than 62 bits.
absl::StatusOr<Codec> RoundCodec(const v1::VflSgdmfConfig& config, int64_t round);

}  // namespace fedmf::algorithms::vfl_sgdmf

#endif  // FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_CODEC_H_
