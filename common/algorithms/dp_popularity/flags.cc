// dp-popularity's flags and the factory of a fresh run (new_run.h). Linked only into the binaries
// that start runs (fedmf-coordinator, fedmf-sim).
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "google/protobuf/empty.pb.h"
#include "absl/strings/str_cat.h"
#include "common/algorithms/dp_popularity/dp_popularity.h"
#include "common/algorithms/dp_popularity/updater.h"
#include "common/algorithms/new_run.h"
#include "common/util/event_log.h"

ABSL_FLAG(bool, popularity_noise, true,
          "dp-popularity: false counts every rating exactly (the non-private popularity)");
ABSL_FLAG(int32_t, popularity_max_items, 64,
          "dp-popularity: most items one user counts, sampled uniformly when it rated more (the "
          "sensitivity); 0 without noise: all");
ABSL_FLAG(int64_t, popularity_scale, 16,
          "dp-popularity: integer units per counted item (a larger scale lets each user's noise "
          "share meet the distributed discrete Gaussian's sigma >= 1/2 at a smaller total noise)");

namespace fedmf::algorithms::dp_popularity {
namespace {

absl::StatusOr<NewRun> StartDpPopularityRun(const RunSettings& run, const google::protobuf::Empty& /*options*/) {
  if (run.rounds != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("dp-popularity counts once: --rounds=", run.rounds, " must be 1"));
  }
  const bool noise = absl::GetFlag(FLAGS_popularity_noise);
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
  c.set_max_items(std::min(absl::GetFlag(FLAGS_popularity_max_items), run.num_items));
  c.set_noise(noise);
  if (noise) {
    c.set_epsilon(run.epsilon);
    c.set_delta(run.delta.value_or(kDefaultDelta));
    c.set_scale(absl::GetFlag(FLAGS_popularity_scale));
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
const NewRunRegistrar kNewRunRegistrar(kAlgorithmName, google::protobuf::Empty(), StartDpPopularityRun,
                                       {.rounds = 1, .outlook_points = {}});

}  // namespace
}  // namespace fedmf::algorithms::dp_popularity
