#include "common/algorithms/lib/fmf_party/noisy_sum_codec.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace fedmf::algorithms::fmf_party {

absl::StatusOr<NoisySumCodec> MakeNoisySumCodec(double clean_bound, double noise_stddev,
                                                int64_t parties) {
  if (!(std::isfinite(clean_bound) && clean_bound >= 0 && std::isfinite(noise_stddev) &&
        noise_stddev >= 0 && parties >= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("noisy-sum codec: clean_bound=", clean_bound, ", noise_stddev=", noise_stddev,
                     ", parties=", parties, " must be finite >= 0, finite >= 0 and >= 1"));
  }
  NoisySumCodec out;
  out.party_bound = clean_bound + kNoiseTailStddevs * noise_stddev;
  absl::StatusOr<Codec> codec =
      MakeCodec(static_cast<double>(parties) * out.party_bound, kGradientFractionBits, parties);
  if (!codec.ok()) return codec.status();
  out.codec = *codec;
  return out;
}

absl::StatusOr<SaturatedUpload> EncodeSaturating(const NoisySumCodec& codec,
                                                 const Eigen::Ref<const Eigen::VectorXd>& values) {
  SaturatedUpload out;
  Eigen::VectorXd clamped = values;
  for (Eigen::Index k = 0; k < clamped.size(); ++k) {
    if (std::isnan(clamped[k])) {
      return absl::InvalidArgumentError(
          absl::StrCat("noisy-sum upload: value at ", k, " is not a number"));
    }
    if (std::abs(clamped[k]) > codec.party_bound) {
      clamped[k] = std::copysign(codec.party_bound, clamped[k]);
      ++out.saturated;
    }
  }
  absl::StatusOr<std::vector<uint64_t>> encoded = Encode(codec.codec, clamped);
  if (!encoded.ok()) return encoded.status();
  out.encoded = *std::move(encoded);
  return out;
}

}  // namespace fedmf::algorithms::fmf_party
