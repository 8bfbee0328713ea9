// dp-als's fresh run (new_run.h): its options (fedmf.v1.DpAlsOptions) and the runtime's
// RunSettings make a DpAlsConfig (--rounds is T, the number of releases; --epsilon and --delta the
// whole-run user-level budget), whose updater starts the run. Linked only into the binaries that
// start runs (fedmf-coordinator, fedmf-sim). The defaults are the settings chosen at epsilon 5 on
// ML-100K's split seed 1 (docs/results/privacy-utility.md, "DP-ALS"), with --rounds=2.
#include "common/algorithms/new_run.h"

#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/algorithms/dp_als/config.h"
#include "common/algorithms/dp_als/privacy.h"
#include "common/algorithms/dp_als/updater.h"
#include "common/util/event_log.h"
#include "fedmf/v1/dp_als.pb.h"

namespace fedmf::algorithms::dp_als {
namespace {

// The settings chosen at epsilon 5 on ML-100K's split seed 1 (configs/dp-als/default.textproto
// lists the same).
v1::DpAlsOptions DefaultOptions() {
  v1::DpAlsOptions o;
  o.set_rank(5);
  o.set_lambda(0.05);
  o.set_mu(1);
  o.set_kappa(5);
  o.set_item_cap(100);
  o.set_factor_bound(0.01);
  o.set_rating_clip(1);
  o.set_gram_share(0.05);
  o.set_item_gram(v1::DpAlsConfig::ITEM_GRAM_NONE);
  o.set_shrinkage(1);
  o.set_mechanism(v1::DpAlsConfig::MECHANISM_DDG);
  o.set_init_scale(0.1);
  o.set_init_constant_column(false);
  o.set_scale_to_cap(true);
  o.set_fixed_point_bits(30);
  o.set_ddg_bits(24);
  return o;
}

// The event line's name of an option's enum value: the short name in lower case ("ddg", "count").
std::string ShortName(const std::string& full) {
  return absl::AsciiStrToLower(full.substr(full.find('_') + 1));
}

absl::StatusOr<std::string> MechanismName(v1::DpAlsConfig::Mechanism mechanism) {
  switch (mechanism) {
    case v1::DpAlsConfig::MECHANISM_DDG:
    case v1::DpAlsConfig::MECHANISM_GAUSSIAN:
    case v1::DpAlsConfig::MECHANISM_NONE:
      return ShortName(v1::DpAlsConfig::Mechanism_Name(mechanism));
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("dp-als: mechanism=", v1::DpAlsConfig::Mechanism_Name(mechanism),
                       " must be ddg, gaussian or none"));
  }
}

absl::StatusOr<std::string> ItemGramName(v1::DpAlsConfig::ItemGram item_gram) {
  switch (item_gram) {
    case v1::DpAlsConfig::ITEM_GRAM_FULL:
    case v1::DpAlsConfig::ITEM_GRAM_COUNT:
    case v1::DpAlsConfig::ITEM_GRAM_NONE:
      // ITEM_GRAM_X: the short name follows the second '_'.
      return absl::AsciiStrToLower(
          v1::DpAlsConfig::ItemGram_Name(item_gram).substr(sizeof("ITEM_GRAM_") - 1));
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("dp-als: item_gram=", v1::DpAlsConfig::ItemGram_Name(item_gram),
                       " must be full, count or none"));
  }
}

absl::StatusOr<NewRun> StartDpAlsRun(const RunSettings& run, const v1::DpAlsOptions& options) {
  if (run.participation.has_value() && *run.participation != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("dp-als sums every user every round: --participation=", *run.participation,
                     " must be 1 or unset"));
  }
  absl::StatusOr<std::string> mechanism = MechanismName(options.mechanism());
  if (!mechanism.ok()) return mechanism.status();
  absl::StatusOr<std::string> item_gram = ItemGramName(options.item_gram());
  if (!item_gram.ok()) return item_gram.status();
  // The one option whose DpAlsConfig field has another name (ValidateConfig names the others).
  if (!std::isfinite(options.shrinkage()) || options.shrinkage() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("dp-als: shrinkage=", options.shrinkage(), " must be finite >= 0"));
  }
  v1::DpAlsConfig c;
  c.set_num_items(run.num_items);
  c.set_num_users(run.num_users);
  c.set_rank(options.rank());
  c.set_lambda(options.lambda());
  c.set_mu(options.mu());
  c.set_kappa(options.kappa());
  c.set_iterations(run.rounds);
  c.set_item_cap(options.item_cap());
  c.set_factor_bound(options.factor_bound());
  c.set_rating_clip(options.rating_clip());
  c.set_gram_share(options.gram_share());
  c.set_mechanism(options.mechanism());
  c.set_item_gram(options.item_gram());
  c.set_linear_shrinkage(options.shrinkage());
  c.set_secure_aggregation(run.secure_aggregation);
  c.set_epsilon(run.epsilon);
  c.set_delta(run.delta.value_or(kDefaultDelta));
  c.set_seed(run.seed);
  c.set_init_scale(options.init_scale());
  c.set_init_constant_column(options.init_constant_column());
  c.set_scale_to_cap(options.scale_to_cap());
  c.set_fixed_point_bits(options.fixed_point_bits());
  c.set_ddg_bits(options.ddg_bits());
  c.set_rating_min(run.rating_scale.min);
  c.set_rating_max(run.rating_scale.max);
  absl::StatusOr<std::unique_ptr<DpAlsUpdater>> updater =
      DpAlsUpdater::Create(c, run.start_item_factors);
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
      {"item_gram", *item_gram},
      {"shrinkage", EventValue(c.linear_shrinkage())},
      {"mechanism", *mechanism},
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
// (docs/results/privacy-utility.md, "DP-ALS"). The noise outlook's measurements: the options'
// defaults on ML-100K at epsilon 10, 5 and 2 (seeds 1-4 at 5, seed 1
// elsewhere), F1@10 over DP popularity's on the same seeds. Made by `tools/experiments/run.py
// privacy-utility` (its outlook rows and tables); checked there on a 600-user subsample.
const NewRunRegistrar kNewRunRegistrar(
    kAlgorithmName, DefaultOptions(), StartDpAlsRun,
    {.rounds = 2,
     .outlook_points = {{.noise_to_signal = 0.1459, .f1_over_dp_popularity = 1.505},
                        {.noise_to_signal = 0.2626, .f1_over_dp_popularity = 1.322},
                        {.noise_to_signal = 0.5918, .f1_over_dp_popularity = 1.010}},
     .starts_from_item_factors = true});

}  // namespace
}  // namespace fedmf::algorithms::dp_als
