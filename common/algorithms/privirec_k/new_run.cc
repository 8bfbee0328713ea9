// privirec-k's fresh run (new_run.h): its options (fedmf.v1.PriviRecKOptions,
// configs/privirec-k/) and the runtime's RunSettings make a PriviRecKConfig, whose updater starts
// the run. Linked only into the binaries that start runs (fedmf-coordinator, fedmf-sim).
#include "common/algorithms/new_run.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/lib/graph_filter/config.h"
#include "common/algorithms/privirec/privirec.h"
#include "common/algorithms/privirec_k/noise.h"
#include "common/algorithms/privirec_k/privirec_k.h"
#include "common/algorithms/privirec_k/updater.h"
#include "common/util/event_log.h"
#include "fedmf/v1/privirec_k.pb.h"

namespace fedmf::algorithms::privirec_k {
namespace {

// The paper's protocol at k = 256, no noise (configs/privirec-k/default.textproto).
v1::PriviRecKOptions DefaultOptions() {
  v1::PriviRecKOptions o;
  o.set_rank(256);
  o.set_power_sums(2);
  o.set_rayleigh_ritz(true);
  o.set_frac_bits(0);
  o.set_epsilon(0);
  o.set_noise_parties(0);
  o.set_degree_clip(100);
  o.set_oversample(0);
  o.set_filter(v1::PriviRecOptions::FILTER_GF_CF);
  o.set_low_pass_rank(0);
  return o;
}

absl::StatusOr<NewRun> StartPriviRecKRun(const RunSettings& run,
                                         const v1::PriviRecKOptions& options) {
  if (run.rounds != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("privirec-k sums once (L + 1 phases): --rounds=", run.rounds, " must be 1"));
  }
  if (!run.secure_aggregation) {
    return absl::InvalidArgumentError(
        "privirec-k: every sum is secure (--secure_aggregation=false would upload each user's "
        "items in the clear; fedmf-sim --plain_sum adds the same sums in-process)");
  }
  if (options.rank() < 1 || options.rank() > run.num_items) {
    return absl::InvalidArgumentError(absl::StrCat(
        "privirec-k: rank=", options.rank(), " must be in [1, num_items = ", run.num_items, "]"));
  }
  if (options.power_sums() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("privirec-k: power_sums=", options.power_sums(), " must be >= 1"));
  }
  if (options.frac_bits() < 0) {
    return absl::InvalidArgumentError(absl::StrCat("privirec-k: frac_bits=", options.frac_bits(),
                                                   " must be >= 0 (0: the most that fits)"));
  }
  if (options.oversample() < 0 || options.oversample() > run.num_items - options.rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat("privirec-k: oversample=", options.oversample(),
                     " must be in [0, num_items - rank = ", run.num_items - options.rank(), "]"));
  }
  if (options.low_pass_rank() < 0 || options.low_pass_rank() > options.rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat("privirec-k: low_pass_rank=", options.low_pass_rank(),
                     " must be in [0, rank = ", options.rank(), "] (0: all k columns)"));
  }
  const std::string filter_name = privirec::FilterName(options.filter());
  absl::StatusOr<graph_filter::GraphFilterConfig> filter =
      graph_filter::PublishedConfig(filter_name);
  if (!filter.ok() || filter->model == graph_filter::FilterModel::kTurboCf) {
    return absl::InvalidArgumentError(absl::StrCat(
        "privirec-k: filter=", filter_name,
        " must be gf-cf, bspm-em or bspm-lm (Turbo-CF's entrywise power needs P~'s entries, "
        "which only privirec gives its clients)"));
  }
  v1::PriviRecKConfig c;
  c.set_num_items(run.num_items);
  c.set_num_users(run.num_users);
  c.set_rank(options.rank());
  c.set_oversample(options.oversample());
  c.set_power_sums(options.power_sums());
  const int32_t f = options.frac_bits();
  c.set_frac_bits(f > 0 ? f : DefaultFracBits(run.num_users));
  c.set_seed(run.seed);
  c.set_rayleigh_ritz(options.rayleigh_ritz());
  c.set_filter(filter_name);
  c.set_low_pass_rank(options.low_pass_rank());
  c.set_gamma(filter->model == graph_filter::FilterModel::kGfCf ? filter->gamma
                                                                : filter->bspm.ideal_weight);
  if (const double epsilon = options.epsilon(); epsilon != 0) {
    // The DP option (noise.h): whole-run (epsilon, delta) per user.
    c.set_epsilon(epsilon);
    c.set_delta(run.delta.value_or(kDefaultDelta));
    c.set_degree_clip(options.degree_clip());
  }
  c.set_noise_parties(options.noise_parties());  // checked with epsilon
  absl::StatusOr<std::unique_ptr<PriviRecKUpdater>> updater = PriviRecKUpdater::Create(c);
  if (!updater.ok()) return updater.status();
  std::vector<std::pair<std::string, std::string>> fields = {
      {"population", absl::StrCat(c.num_users())},
      {"rank", absl::StrCat(c.rank())},
      {"oversample", absl::StrCat(c.oversample())},
      {"power_sums", absl::StrCat(c.power_sums())},
      {"rayleigh_ritz", c.rayleigh_ritz() ? "yes" : "no"},
      {"filter", c.filter()},
      {"low_pass_rank", absl::StrCat(c.low_pass_rank() != 0 ? c.low_pass_rank() : c.rank())},
      {"gamma", EventValue(c.gamma())},
      {"frac_bits", absl::StrCat(c.frac_bits())},
      {"power_bits", absl::StrCat(PowerBits(c))},
      {"power_length", absl::StrCat(PowerLength(c))},
      {"power_error_bound", EventValue(PowerErrorBound(c))}};
  if (Noisy(c)) {
    const v1::PriviRecKNoise& noise = (*updater)->model().noise();
    fields.insert(fields.end(), {{"epsilon", EventValue(c.epsilon())},
                                 {"delta", EventValue(c.delta())},
                                 {"degree_clip", absl::StrCat(c.degree_clip())},
                                 {"noise_parties", absl::StrCat(NoiseParties(c))},
                                 {"degree_noise_std", EventValue(noise.degree_noise_std())},
                                 {"power_noise_std", EventValue(noise.power_noise_std())},
                                 {"noise_scale", EventValue(noise.scale())}});
  }
  return NewRun{*std::move(updater), std::move(fields)};
}

// One release: --rounds may be left out.
const NewRunRegistrar kNewRunRegistrar(kAlgorithmName, DefaultOptions(), StartPriviRecKRun,
                                       {.rounds = 1,
                                        .outlook_points = {},
                                        .starts_from_item_factors = false});

}  // namespace
}  // namespace fedmf::algorithms::privirec_k
