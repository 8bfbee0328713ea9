// The options of the noisy DP-SGD steps that vfl-sgdmf and hfl-sgdmf share (fedmf.v1.FmfSgdOptions,
// nested as their options' `sgd`): the defaults, their range checks, and the fields of an
// algorithm's Config they set. Linked only into the binaries that start runs, with the
// algorithms' new_run.cc.
#ifndef FEDMF_COMMON_ALGORITHMS_LIB_FMF_SGD_SGD_OPTIONS_H_
#define FEDMF_COMMON_ALGORITHMS_LIB_FMF_SGD_SGD_OPTIONS_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "fedmf/v1/fmf_sgd.pb.h"

namespace fedmf::algorithms::fmf_sgd {

// DpSgdMfConfig's defaults (config.h), noise_multiplier -1 (calibrated from the budget).
v1::FmfSgdOptions DefaultSgdOptions();

// InvalidArgument "ALGORITHM: sgd.FIELD=VALUE must be ..." for the first field out of its range
// (init_prediction's upper bound, the rating scale, is the run's to check).
absl::Status ValidateSgdOptions(const v1::FmfSgdOptions& options, absl::string_view algorithm);

// Sets rank, sampling_rate, learning_rate, final_learning_rate_fraction and init_prediction of a
// VflSgdmfConfig or HflSgdmfConfig (the noise multiplier is the caller's: it may be calibrated).
template <typename Config>
void SetSgdFields(const v1::FmfSgdOptions& options, Config& config) {
  config.set_rank(options.rank());
  config.set_sampling_rate(options.sampling_rate());
  config.set_learning_rate(options.learning_rate());
  config.set_final_learning_rate_fraction(options.final_learning_rate_fraction());
  config.set_init_prediction(options.init_prediction());
}

}  // namespace fedmf::algorithms::fmf_sgd

#endif  // FEDMF_COMMON_ALGORITHMS_LIB_FMF_SGD_SGD_OPTIONS_H_
