#include "common/algorithms/vfl_sgdmf/codec.h"

#include "common/algorithms/vfl_sgdmf/config.h"

namespace fedmf::algorithms::vfl_sgdmf {

absl::StatusOr<Codec> RoundCodec(const v1::VflSgdmfConfig& config, int64_t round) {
  if (IsFinalRound(config, round)) {
    return fmf_party::ErrorSumCodec(config.num_users(), config.num_items(), config.rating_max(),
                                    config.num_parties());
  }
  return fmf_party::EmbeddingAverageCodec(config.rating_max(), config.num_parties());
}

}  // namespace fedmf::algorithms::vfl_sgdmf
