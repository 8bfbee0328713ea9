// privirec's fresh run (new_run.h): its options (fedmf.v1.PriviRecOptions, configs/privirec/)
// and the runtime's RunSettings make a PriviRecConfig, whose updater starts the run. Linked only
// into the binaries that start runs (fedmf-coordinator, fedmf-sim).
#include "common/algorithms/new_run.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/privirec/noise.h"
#include "common/algorithms/privirec/privirec.h"
#include "common/algorithms/privirec/updater.h"
#include "common/util/event_log.h"
#include "fedmf/v1/privirec.pb.h"

namespace fedmf::algorithms::privirec {
namespace {

// The paper's protocol with GF-CF, no noise (configs/privirec/default.textproto).
v1::PriviRecOptions DefaultOptions() {
  v1::PriviRecOptions o;
  o.set_filter(v1::PriviRecOptions::FILTER_GF_CF);
  o.set_frac_bits(0);
  o.set_epsilon(0);
  o.set_degree_clip(100);
  o.set_noise_parties(0);
  o.set_gram_threshold(0);
  return o;
}

absl::StatusOr<NewRun> StartPriviRecRun(const RunSettings& run,
                                        const v1::PriviRecOptions& options) {
  if (run.rounds != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("privirec sums once (two phases): --rounds=", run.rounds, " must be 1"));
  }
  if (!run.secure_aggregation) {
    return absl::InvalidArgumentError(
        "privirec: every sum is secure (--secure_aggregation=false would upload each user's "
        "items in the clear; fedmf-sim --plain_sum adds the same sums in-process)");
  }
  if (options.filter() == v1::PriviRecOptions::FILTER_UNSPECIFIED) {
    return absl::InvalidArgumentError(
        "privirec: filter=FILTER_UNSPECIFIED must be gf-cf, turbo-cf, bspm-lm or bspm-em");
  }
  if (options.frac_bits() < 0) {
    return absl::InvalidArgumentError(absl::StrCat("privirec: frac_bits=", options.frac_bits(),
                                                   " must be >= 0 (0: the most that fits)"));
  }
  v1::PriviRecConfig c;
  c.set_num_items(run.num_items);
  c.set_num_users(run.num_users);
  c.set_filter(FilterName(options.filter()));
  const int32_t f = options.frac_bits();
  c.set_frac_bits(f > 0 ? f : DefaultFracBits(run.num_users));
  if (const double epsilon = options.epsilon(); epsilon != 0) {
    // The DP option (noise.h): whole-run (epsilon, delta) per user.
    c.set_epsilon(epsilon);
    c.set_delta(run.delta.value_or(kDefaultDelta));
    c.set_degree_clip(options.degree_clip());
    c.set_gram_threshold(options.gram_threshold());
  }
  c.set_seed(run.seed);
  c.set_noise_parties(options.noise_parties());  // checked with epsilon
  absl::StatusOr<std::unique_ptr<PriviRecUpdater>> updater = PriviRecUpdater::Create(c);
  if (!updater.ok()) return updater.status();
  std::vector<std::pair<std::string, std::string>> fields = {
      {"filter", c.filter()},
      {"population", absl::StrCat(c.num_users())},
      {"frac_bits", absl::StrCat(c.frac_bits())},
      {"degree_bits", absl::StrCat(DegreeBits(c))},
      {"gram_bits", absl::StrCat(GramBits(c))},
      {"gram_length", absl::StrCat(UpperLength(c.num_items()))},
      {"gram_error_bound", EventValue(GramErrorBound(c))}};
  if (Noisy(c)) {
    const v1::PriviRecNoise& noise = (*updater)->model().noise();
    fields.insert(fields.end(), {{"epsilon", EventValue(c.epsilon())},
                                 {"delta", EventValue(c.delta())},
                                 {"degree_clip", absl::StrCat(c.degree_clip())},
                                 {"gram_threshold", EventValue(c.gram_threshold())},
                                 {"noise_parties", absl::StrCat(NoiseParties(c))},
                                 {"degree_noise_std", EventValue(noise.degree_noise_std())},
                                 {"gram_noise_std", EventValue(noise.gram_noise_std())},
                                 {"noise_scale", EventValue(noise.gram_scale())}});
  }
  return NewRun{*std::move(updater), std::move(fields)};
}

// One release: --rounds may be left out.
const NewRunRegistrar kNewRunRegistrar(kAlgorithmName, DefaultOptions(), StartPriviRecRun,
                                       {.rounds = 1,
                                        .outlook_points = {},
                                        .starts_from_item_factors = false});

}  // namespace
}  // namespace fedmf::algorithms::privirec
