#include "common/algorithms/lib/fmf_sgd/sgd_options.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/algorithms/lib/fmf_sgd/config.h"

namespace fedmf::algorithms::fmf_sgd {
namespace {

absl::Status BadSgdOption(absl::string_view algorithm, absl::string_view field, double value,
                          absl::string_view want) {
  return absl::InvalidArgumentError(
      absl::StrCat(algorithm, ": sgd.", field, "=", value, " must be ", want));
}

}  // namespace

v1::FmfSgdOptions DefaultSgdOptions() {
  const DpSgdMfConfig defaults;
  v1::FmfSgdOptions o;
  o.set_rank(defaults.rank);
  o.set_sampling_rate(defaults.sampling_rate);
  o.set_noise_multiplier(-1);
  o.set_learning_rate(defaults.learning_rate);
  o.set_final_learning_rate_fraction(defaults.final_learning_rate_fraction);
  o.set_init_prediction(defaults.init_prediction);
  return o;
}

absl::Status ValidateSgdOptions(const v1::FmfSgdOptions& o, absl::string_view algorithm) {
  if (o.rank() < 1) return BadSgdOption(algorithm, "rank", o.rank(), ">= 1");
  if (!(o.sampling_rate() > 0 && o.sampling_rate() <= 1)) {
    return BadSgdOption(algorithm, "sampling_rate", o.sampling_rate(), "in (0, 1]");
  }
  if (!std::isfinite(o.noise_multiplier())) {
    return BadSgdOption(algorithm, "noise_multiplier", o.noise_multiplier(),
                        "finite (negative: calibrated from the budget)");
  }
  if (!(std::isfinite(o.learning_rate()) && o.learning_rate() > 0)) {
    return BadSgdOption(algorithm, "learning_rate", o.learning_rate(), "finite > 0");
  }
  if (!(o.final_learning_rate_fraction() > 0 && o.final_learning_rate_fraction() <= 1)) {
    return BadSgdOption(algorithm, "final_learning_rate_fraction",
                        o.final_learning_rate_fraction(), "in (0, 1]");
  }
  if (!(std::isfinite(o.init_prediction()) && o.init_prediction() > 0)) {
    return BadSgdOption(algorithm, "init_prediction", o.init_prediction(),
                        "in (0, --rating_max]");
  }
  return absl::OkStatus();
}

}  // namespace fedmf::algorithms::fmf_sgd
