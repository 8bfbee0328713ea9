// dp-popularity's fresh run (new_run.h): its options (fedmf.v1.DpPopularityOptions,
// configs/dp-popularity/default.textproto) and the runtime's RunSettings make a
// DpPopularityConfig, whose updater starts the run. Linked only into the binaries that start runs
// (fedmf-coordinator, fedmf-sim).
#include "common/algorithms/new_run.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/dp_popularity/dp_popularity.h"
#include "common/algorithms/dp_popularity/updater.h"
#include "common/util/event_log.h"
#include "fedmf/v1/dp_popularity.pb.h"

namespace fedmf::algorithms::dp_popularity {
namespace {

v1::DpPopularityOptions DefaultOptions() {
  v1::DpPopularityOptions o;
  o.set_noise(true);
  o.set_max_items(64);
  o.set_scale(16);
  return o;
}

absl::StatusOr<NewRun> StartDpPopularityRun(const RunSettings& run,
                                            const v1::DpPopularityOptions& options) {
  if (run.rounds != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("dp-popularity counts once: --rounds=", run.rounds, " must be 1"));
  }
  const bool noise = options.noise();
  if (options.max_items() < (noise ? 1 : 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("dp-popularity: max_items=", options.max_items(),
                     " must be >= ", noise ? "1 with noise" : "0 (0: all)"));
  }
  if (noise && (options.scale() < 1 || options.scale() > (int64_t{1} << 20))) {
    return absl::InvalidArgumentError(
        absl::StrCat("dp-popularity: scale=", options.scale(), " must be in [1, 2^20]"));
  }
  if (noise && !run.secure_aggregation) {
    return absl::InvalidArgumentError(
        "dp-popularity: --secure_aggregation=false would show each user's vector with a share "
        "of the noise only");
  }
  v1::DpPopularityConfig c;
  c.set_num_items(run.num_items);
  c.set_num_users(run.num_users);
  c.set_cohort_size(SampledCohort(run));
  c.set_min_contributors(run.min_clients > 0 ? run.min_clients : c.cohort_size());
  // A cap beyond the catalogue caps nothing.
  c.set_max_items(std::min(options.max_items(), run.num_items));
  c.set_noise(noise);
  if (noise) {
    c.set_epsilon(run.epsilon);
    c.set_delta(run.delta.value_or(kDefaultDelta));
    c.set_scale(options.scale());
    c.set_wrap_probability(1e-9);
  }
  absl::StatusOr<std::unique_ptr<DpPopularityUpdater>> updater = DpPopularityUpdater::Create(c);
  if (!updater.ok()) return updater.status();
  const v1::DpPopularityConfig& calibrated = (*updater)->config();
  absl::StatusOr<v1::RoundPlan> plan = (*updater)->Plan();
  if (!plan.ok()) return plan.status();
  std::vector<std::pair<std::string, std::string>> fields = {
      {"noise", noise ? "ddg" : "none"},
      {"max_items", absl::StrCat(calibrated.max_items())},
      {"epsilon", EventValue(calibrated.epsilon())},
      {"delta", EventValue(calibrated.delta())},
      {"cohort", absl::StrCat(calibrated.cohort_size())},
      {"n_min", absl::StrCat(calibrated.min_contributors())},
      {"scale", absl::StrCat(calibrated.scale())},
      {"noise_std", EventValue(calibrated.noise_std())},
      {"upload_length", absl::StrCat(plan->length())},
      {"client_bits", absl::StrCat(plan->client_bits())},
      {"sum_bits", absl::StrCat(plan->bits())}};
  return NewRun{*std::move(updater), std::move(fields)};
}

// One release: --rounds may be left out.
const NewRunRegistrar kNewRunRegistrar(kAlgorithmName, DefaultOptions(), StartDpPopularityRun,
                                       {.rounds = 1,
                                        .outlook_points = {},
                                        .starts_from_item_factors = false});

}  // namespace
}  // namespace fedmf::algorithms::dp_popularity
