// dp-als's flags and the factory of a fresh run (new_run.h): the flags and the runtime's
// RunSettings make a DpAlsConfig (--rounds is T, the number of releases; --epsilon and --delta the
// whole-run user-level budget). Linked only into the binaries that start runs (fedmf-coordinator,
// fedmf-sim). The defaults are the settings chosen at epsilon 5 on ML-100K's split seed 1
// (docs/results/privacy-utility.md, "DP-ALS"), with --rounds=2; --rounds keeps the runtime's
// default (100), far too many releases for DP-ALS: pass it.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "google/protobuf/empty.pb.h"
#include "absl/strings/str_cat.h"
#include "common/algorithms/dp_als/config.h"
#include "common/algorithms/dp_als/privacy.h"
#include "common/algorithms/dp_als/updater.h"
#include "common/algorithms/new_run.h"
#include "common/util/event_log.h"

ABSL_FLAG(int32_t, dpals_rank, 5, "dp-als: k, the factors' rank");
ABSL_FLAG(double, dpals_lambda, 0.05, "dp-als: user ridge of the on-device solve (eq. 5)");
ABSL_FLAG(double, dpals_mu, 1, "dp-als: item ridge of the coordinator's solve");
ABSL_FLAG(double, dpals_kappa, 5,
          "dp-als: observed ratings weigh 1 + kappa, unobserved 1 (DPMF-RP eq. 4), both sides");
ABSL_FLAG(int32_t, dpals_item_cap, 100,
          "dp-als: C, most items a user contributes per round (a uniform sample of its items)");
ABSL_FLAG(double, dpals_factor_bound, 0.01, "dp-als: U, a user's factor is L2-clipped to U");
ABSL_FLAG(double, dpals_rating_clip, 1, "dp-als: R, ratings are clamped to [0, R]");
ABSL_FLAG(double, dpals_gram_share, 0.05,
          "dp-als: s in (0, 1), the share of a user's unit L2 norm given to the Gram statistics "
          "(the rest to the linear ones): the noise split between the two");
ABSL_FLAG(std::string, dpals_item_gram, "none",
          "dp-als: what each item's statistics carry besides sum r u: full (its raters' Gram "
          "sum u u^T, k (k + 1) / 2 coordinates: the exact ALS step), count (its rater count, "
          "G_j ~ count A / n: 1 coordinate) or none (G_j = 0)");
ABSL_FLAG(double, dpals_shrinkage, 1,
          "dp-als: t >= 0, each item's noisy sum r u is shrunk by max(0, 1 - t k sigma^2 / "
          "||b||^2) before its solve (t = 1: positive-part James-Stein); 0: none");
ABSL_FLAG(std::string, dpals_mechanism, "ddg",
          "dp-als: ddg (distributed discrete Gaussian, secure sums), gaussian (distributed "
          "Gaussian in fixed point; with --secure_aggregation=false each user adds it all) or "
          "none (no noise)");
ABSL_FLAG(double, dpals_init_scale, 0.1,
          "dp-als: V_0 uniform in [-s, s) from the run's public --seed");
ABSL_FLAG(bool, dpals_init_constant_column, false,
          "dp-als: V_0's first column is --dpals_init_scale on every item (the first round then "
          "releases the items' rater sums), the others uniform; false: all uniform");
ABSL_FLAG(bool, dpals_scale_to_cap, true,
          "dp-als: a user contributing c < C items scales them by sqrt(C / c), reaching the "
          "norm bound (light users weigh more); false: weight 1 (the exact ALS step)");
ABSL_FLAG(int32_t, dpals_fixed_point_bits, 30, "dp-als: gaussian and none: fixed-point scale 2^f");
ABSL_FLAG(int32_t, dpals_ddg_bits, 24,
          "dp-als: ddg: most bits per coordinate of the secure sum (the largest scale that fits)");

namespace fedmf::algorithms::dp_als {
namespace {

absl::StatusOr<v1::DpAlsConfig::Mechanism> ParseMechanism(const std::string& name) {
  if (name == "ddg") return v1::DpAlsConfig::MECHANISM_DDG;
  if (name == "gaussian") return v1::DpAlsConfig::MECHANISM_GAUSSIAN;
  if (name == "none") return v1::DpAlsConfig::MECHANISM_NONE;
  return absl::InvalidArgumentError(
      absl::StrCat("--dpals_mechanism=", name, ": expected ddg, gaussian or none"));
}

absl::StatusOr<v1::DpAlsConfig::ItemGram> ParseItemGram(const std::string& name) {
  if (name == "full") return v1::DpAlsConfig::ITEM_GRAM_FULL;
  if (name == "count") return v1::DpAlsConfig::ITEM_GRAM_COUNT;
  if (name == "none") return v1::DpAlsConfig::ITEM_GRAM_NONE;
  return absl::InvalidArgumentError(
      absl::StrCat("--dpals_item_gram=", name, ": expected full, count or none"));
}

absl::StatusOr<NewRun> StartDpAlsRun(const RunSettings& run, const google::protobuf::Empty& /*options*/) {
  if (run.participation.has_value() && *run.participation != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("dp-als sums every user every round: --participation=", *run.participation,
                     " must be 1 or unset"));
  }
  absl::StatusOr<v1::DpAlsConfig::Mechanism> mechanism =
      ParseMechanism(absl::GetFlag(FLAGS_dpals_mechanism));
  if (!mechanism.ok()) return mechanism.status();
  absl::StatusOr<v1::DpAlsConfig::ItemGram> item_gram =
      ParseItemGram(absl::GetFlag(FLAGS_dpals_item_gram));
  if (!item_gram.ok()) return item_gram.status();
  v1::DpAlsConfig c;
  c.set_num_items(run.num_items);
  c.set_num_users(run.num_users);
  c.set_rank(absl::GetFlag(FLAGS_dpals_rank));
  c.set_lambda(absl::GetFlag(FLAGS_dpals_lambda));
  c.set_mu(absl::GetFlag(FLAGS_dpals_mu));
  c.set_kappa(absl::GetFlag(FLAGS_dpals_kappa));
  c.set_iterations(run.rounds);
  c.set_item_cap(absl::GetFlag(FLAGS_dpals_item_cap));
  c.set_factor_bound(absl::GetFlag(FLAGS_dpals_factor_bound));
  c.set_rating_clip(absl::GetFlag(FLAGS_dpals_rating_clip));
  c.set_gram_share(absl::GetFlag(FLAGS_dpals_gram_share));
  c.set_mechanism(*mechanism);
  c.set_item_gram(*item_gram);
  c.set_linear_shrinkage(absl::GetFlag(FLAGS_dpals_shrinkage));
  c.set_secure_aggregation(run.secure_aggregation);
  c.set_epsilon(run.epsilon);
  c.set_delta(run.delta.value_or(kDefaultDelta));
  c.set_seed(run.seed);
  c.set_init_scale(absl::GetFlag(FLAGS_dpals_init_scale));
  c.set_init_constant_column(absl::GetFlag(FLAGS_dpals_init_constant_column));
  c.set_scale_to_cap(absl::GetFlag(FLAGS_dpals_scale_to_cap));
  c.set_fixed_point_bits(absl::GetFlag(FLAGS_dpals_fixed_point_bits));
  c.set_ddg_bits(absl::GetFlag(FLAGS_dpals_ddg_bits));
  c.set_rating_min(run.rating_scale.min);
  c.set_rating_max(run.rating_scale.max);
  absl::StatusOr<std::unique_ptr<DpAlsUpdater>> updater = DpAlsUpdater::Create(c);
  if (!updater.ok()) return updater.status();
  const v1::DpAlsNoise& noise = (*updater)->model().noise();
  // Round 0's plan: what one user uploads per round (length values of client_bits bits).
  absl::StatusOr<v1::RoundPlan> plan = (*updater)->Plan();
  if (!plan.ok()) return plan.status();
  std::vector<std::pair<std::string, std::string>> fields = {
      {"population", absl::StrCat(c.num_users())},
      {"rank", absl::StrCat(c.rank())},
      {"iterations", absl::StrCat(c.iterations())},
      {"item_cap", absl::StrCat(c.item_cap())},
      {"factor_bound", EventValue(c.factor_bound())},
      {"gram_share", EventValue(c.gram_share())},
      {"item_gram", absl::GetFlag(FLAGS_dpals_item_gram)},
      {"shrinkage", EventValue(c.linear_shrinkage())},
      {"mechanism", absl::GetFlag(FLAGS_dpals_mechanism)},
      {"upload_length", absl::StrCat(plan->length())},
      {"client_bits", absl::StrCat(plan->client_bits())},
      {"sum_bits", absl::StrCat(plan->bits())},
      {"noise_std", EventValue(noise.noise_std())}};
  if (Noisy(c)) {
    const Weights w = StatisticWeights(c);
    // The noise std of one entry of each decoded statistic (A, G_j or the count, b_j).
    fields.insert(fields.end(),
                  {{"epsilon", EventValue(c.epsilon())},
                   {"delta", EventValue(c.delta())},
                   {"global_gram_noise_std", EventValue(noise.noise_std() / w.global)},
                   {"linear_noise_std", EventValue(noise.noise_std() / w.linear)}});
    if (w.item_gram > 0) {
      fields.emplace_back("item_gram_noise_std", EventValue(noise.noise_std() / w.item_gram));
    }
  }
  return NewRun{*std::move(updater), std::move(fields)};
}

// Two releases unless --rounds says otherwise: the number chosen on ML-100K's seed 1 at epsilon 5
// (docs/results/privacy-utility.md, "DP-ALS"). The noise outlook's measurements: the flags'
// defaults on ML-100K at epsilon 10, 5 and 2 (seeds 1-4 at 5, seed 1
// elsewhere), F1@10 over DP popularity's on the same seeds. Printed by `privacy-utility.sh
// outlook` and `privacy-utility.py`; checked there on a 600-user subsample.
const NewRunRegistrar kNewRunRegistrar(
    kAlgorithmName, google::protobuf::Empty(), StartDpAlsRun,
    {.rounds = 2,
     .outlook_points = {{.noise_to_signal = 0.1459, .f1_over_dp_popularity = 1.505},
                        {.noise_to_signal = 0.2626, .f1_over_dp_popularity = 1.322},
                        {.noise_to_signal = 0.5918, .f1_over_dp_popularity = 1.010}}});

}  // namespace
}  // namespace fedmf::algorithms::dp_als
