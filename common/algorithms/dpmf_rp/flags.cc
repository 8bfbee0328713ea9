// DPMF-RP's own command-line flags and the factory of a fresh DPMF-RP run (new_run.h): the flags
// and the runtime's RunSettings make a DpmfRpConfig, whose updater starts the run. Linked only
// into the binaries that start runs (fedmf-coordinator, fedmf-sim).
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/algorithms/dpmf_rp/config.h"
#include "common/algorithms/dpmf_rp/updater.h"
#include "common/algorithms/new_run.h"
#include "common/util/event_log.h"

// --preset names the configuration every flag below falls back to when it is not given
// (PresetConfig in config.h lists both); a flag that is given overrides its preset's value and is
// named in the run's event=new_run line (overrides=...).
ABSL_FLAG(std::string, preset, "fedmf",
          "fedmf: the best configuration measured at whole-run (5, 1e-5)-DP on ML-100K "
          "(Gaussian, every user every round, full item model, mu 0.01, Adam step 0.2, clip "
          "0.016, ranking kappa 5; --delta 1e-5); paper: the DPMF-RP paper's settings (PBM "
          "column_l1, compressed item model, --participation 0.1, mu 0.9, Adam step 0.05) with "
          "--epsilon as RDP at order 2 (--delta 0). Explicit flags override either");
ABSL_FLAG(std::optional<std::string>, mechanism, std::nullopt,
          "pbm, gaussian, ddg (distributed discrete Gaussian) or none; unset: the preset's "
          "(fedmf: gaussian, paper: pbm)");
ABSL_FLAG(std::optional<std::string>, projection, std::nullopt, "sparse or none; unset: sparse");
ABSL_FLAG(std::optional<double>, compression, std::nullopt,
          "m/p of the sparse projection; unset: 3");
ABSL_FLAG(std::optional<std::string>, item_model, std::nullopt,
          "compressed (the paper's B = S V) or full; unset: the preset's (fedmf: full, paper: "
          "compressed)");
ABSL_FLAG(std::optional<int64_t>, max_q, std::nullopt, "PBM: largest number of trials; unset: 16");
ABSL_FLAG(std::optional<int>, rank, std::nullopt, "k; unset: 14");
ABSL_FLAG(std::optional<double>, learning_rate, std::nullopt,
          "Adam step size; unset: the preset's (fedmf: 0.2, paper: 0.05)");
ABSL_FLAG(std::optional<double>, lambda, std::nullopt, "user regularization (eq. 5); unset: 0.25");
ABSL_FLAG(std::optional<double>, mu, std::nullopt,
          "item regularization applied by the server (eq. 7); unset: the preset's (fedmf: "
          "0.01, paper: 0.9)");
ABSL_FLAG(std::optional<double>, kappa, std::nullopt,
          "observed ratings weigh 1 + kappa, unobserved 1 (eq. 4); unset: 15");
ABSL_FLAG(std::optional<double>, ranking_kappa, std::nullopt,
          "kappa of the user factor that ranks items for recommendations and ranking metrics "
          "(client-local, no privacy cost); negative: --kappa; unset: the preset's (fedmf: 5, "
          "paper: --kappa)");
ABSL_FLAG(std::optional<double>, user_l1_clip, std::nullopt,
          "B1: L1 clip of the user factor in the gradient (eq. 17); unset: 0.001");
ABSL_FLAG(std::optional<double>, error_clip, std::nullopt,
          "e: rating errors are clipped to [-e, e] (eq. 16); unset: 1");
ABSL_FLAG(std::optional<double>, contribution_clip, std::nullopt,
          "clip of one contribution X (PBM column_l1: L1; rotated_l2, gaussian and ddg: L2); 0: "
          "the geometry's default (docs/algorithms.md); unset: the preset's (fedmf: 0.016, "
          "paper: 0)");
ABSL_FLAG(std::optional<std::string>, pbm_geometry, std::nullopt,
          "column_l1 (the paper's L1 clip + FlatMat per column) or rotated_l2 (L2 clip, one "
          "rotation of the whole vector; far less noise for the same epsilon); unset: the "
          "preset's (fedmf: rotated_l2, paper: column_l1)");
ABSL_FLAG(std::optional<double>, pbm_clip_multiplier, std::nullopt,
          "gamma of rotated_l2: coordinates are clamped to gamma C / sqrt(D); unset: 3");
ABSL_FLAG(std::optional<int>, ddg_bits, std::nullopt,
          "ddg: bits per coordinate of the secure sum (the largest scale that fits is used); "
          "unset: 20");
ABSL_FLAG(std::optional<double>, ddg_clip_multiplier, std::nullopt,
          "ddg: rotated coordinates are clamped to this times C / sqrt(D); unset: 3");
ABSL_FLAG(std::optional<std::string>, pbm_accounting, std::nullopt,
          "l2 (charge a PBM round by the L2 shift of the whole vector, which the clip bounds) or "
          "coordinate (every coordinate over its whole range: the paper's eq. 20, "
          "conservative); unset: l2");
ABSL_FLAG(std::optional<std::string>, noise_schedule, std::nullopt,
          "gaussian: constant (the calibrated noise std in every round) or prefix_sum (round t's "
          "std proportional to (T - t)^(-1/4), the best matrix-factorization noise for the prefix "
          "sums with every user in every round; the same whole-run privacy); unset: constant");

namespace fedmf::algorithms::dpmf_rp {
namespace {

// Sets `field` to the flag's value when it was given, and names it in `overrides`.
template <typename T, typename F>
void Override(const absl::Flag<std::optional<T>>& flag, absl::string_view name, F& field,
              std::vector<std::string>& overrides) {
  if (const std::optional<T> value = absl::GetFlag(flag); value.has_value()) {
    field = *value;
    overrides.emplace_back(name);
  }
}

// Parses a given enum flag with `parse` into `field`.
template <typename E>
absl::Status OverrideEnum(const absl::Flag<std::optional<std::string>>& flag,
                          absl::string_view name, absl::StatusOr<E> (*parse)(absl::string_view),
                          E& field, std::vector<std::string>& overrides) {
  const std::optional<std::string> value = absl::GetFlag(flag);
  if (!value.has_value()) return absl::OkStatus();
  absl::StatusOr<E> parsed = parse(*value);
  if (!parsed.ok()) return parsed.status();
  field = *parsed;
  overrides.emplace_back(name);
  return absl::OkStatus();
}

struct FlagConfig {
  DpmfRpConfig config;
  Preset preset = Preset::kFedmf;
  std::vector<std::string> overrides;  // the flags given, which override the preset
};

// DPMF-RP for `run` and the flags above: the preset's configuration, then every flag (and run
// setting) that was given; InvalidArgument for a bad value.
absl::StatusOr<FlagConfig> ConfigFromFlags(const RunSettings& run) {
  absl::StatusOr<Preset> preset = ParsePreset(absl::GetFlag(FLAGS_preset));
  if (!preset.ok()) return preset.status();
  FlagConfig out{.config = PresetConfig(*preset), .preset = *preset, .overrides = {}};
  DpmfRpConfig& c = out.config;
  std::vector<std::string>& o = out.overrides;
  c.num_users = run.num_users;
  c.num_items = run.num_items;
  if (run.participation.has_value()) {
    c.participation = *run.participation;
    o.emplace_back("participation");
  }
  if (run.delta.has_value()) {
    c.delta = *run.delta;
    o.emplace_back("delta");
  }
  c.min_clients = run.min_clients;
  c.secure_aggregation = run.secure_aggregation;
  c.simulation_summed_noise = run.simulation_summed_noise;
  c.epsilon = run.epsilon;
  c.rounds = run.rounds;
  c.rating_scale = run.rating_scale;
  c.seed = run.seed;
  if (absl::Status s = OverrideEnum(FLAGS_mechanism, "mechanism", ParseMechanism, c.mechanism, o);
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          OverrideEnum(FLAGS_projection, "projection", ParseProjection, c.projection, o);
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          OverrideEnum(FLAGS_item_model, "item_model", ParseItemModel, c.item_model, o);
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          OverrideEnum(FLAGS_pbm_geometry, "pbm_geometry", ParsePbmGeometry, c.pbm_geometry, o);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = OverrideEnum(FLAGS_pbm_accounting, "pbm_accounting", ParsePbmAccounting,
                                    c.pbm_accounting, o);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = OverrideEnum(FLAGS_noise_schedule, "noise_schedule", ParseNoiseSchedule,
                                    c.noise_schedule, o);
      !s.ok()) {
    return s;
  }
  Override(FLAGS_compression, "compression", c.compression, o);
  Override(FLAGS_max_q, "max_q", c.max_q, o);
  Override(FLAGS_rank, "rank", c.rank, o);
  Override(FLAGS_learning_rate, "learning_rate", c.adam.learning_rate, o);
  Override(FLAGS_lambda, "lambda", c.lambda, o);
  Override(FLAGS_mu, "mu", c.mu, o);
  Override(FLAGS_kappa, "kappa", c.kappa, o);
  if (const std::optional<double> k = absl::GetFlag(FLAGS_ranking_kappa); k.has_value()) {
    if (*k >= 0) {
      c.ranking_kappa = *k;
    } else {
      c.ranking_kappa.reset();
    }
    o.emplace_back("ranking_kappa");
  }
  Override(FLAGS_user_l1_clip, "user_l1_clip", c.user_l1_clip, o);
  Override(FLAGS_error_clip, "error_clip", c.error_clip, o);
  Override(FLAGS_contribution_clip, "contribution_clip", c.contribution_clip, o);
  Override(FLAGS_pbm_clip_multiplier, "pbm_clip_multiplier", c.pbm_clip_multiplier, o);
  Override(FLAGS_ddg_bits, "ddg_bits", c.ddg_bits, o);
  Override(FLAGS_ddg_clip_multiplier, "ddg_clip_multiplier", c.ddg_clip_multiplier, o);
  if (absl::Status s = ValidateConfig(c); !s.ok()) return s;
  return out;
}

absl::StatusOr<NewRun> StartDpmfRpRun(const RunSettings& run) {
  absl::StatusOr<FlagConfig> flags = ConfigFromFlags(run);
  if (!flags.ok()) return flags.status();
  const DpmfRpConfig* config = &flags->config;
  absl::StatusOr<std::unique_ptr<DpmfRpUpdater>> updater = DpmfRpUpdater::Create(*config);
  if (!updater.ok()) return updater.status();
  const v1::DpmfRpMechanism& mechanism = (*updater)->mechanism();
  // Round 0's plan: what one client uploads per round (length values of client_bits bits).
  absl::StatusOr<v1::RoundPlan> plan = (*updater)->Plan();
  if (!plan.ok()) return plan.status();
  std::vector<std::pair<std::string, std::string>> fields = {
      {"preset", std::string(PresetName(flags->preset))},
      {"overrides", flags->overrides.empty() ? "none" : absl::StrJoin(flags->overrides, ",")},
      {"mechanism", std::string(MechanismName(config->mechanism))},
      {"item_model", std::string(ItemModelName(config->item_model))},
      {"secure_aggregation", config->secure_aggregation ? "on" : "off"},
      {"noise", config->simulation_summed_noise ? "summed" : "per_user"},
      {"epsilon", EventValue(config->epsilon)},
      {"delta", EventValue(config->delta)},
      {"participation", EventValue(config->participation)},
      {"rounds", absl::StrCat(config->rounds)},
      {"cohort", absl::StrCat(CohortSize(*config))},
      {"n_min", absl::StrCat(MinContributors(*config))},
      {"pbm_geometry", std::string(PbmGeometryName(config->pbm_geometry))},
      {"pbm_accounting", std::string(PbmAccountingName(config->pbm_accounting))},
      {"pbm_theta", EventValue(mechanism.pbm_theta())},
      {"pbm_q", absl::StrCat(mechanism.pbm_q())},
      {"gaussian_noise_std", EventValue(mechanism.gaussian_noise_std())},
      {"noise_schedule", std::string(NoiseScheduleName(config->noise_schedule))},
      {"ddg_noise_std", EventValue(mechanism.ddg_noise_std())},
      {"ddg_scale", EventValue(mechanism.ddg_scale())},
      {"upload_length", absl::StrCat(plan->length())},
      {"client_bits", absl::StrCat(plan->client_bits())},
      {"sum_bits", absl::StrCat(plan->bits())}};
  return NewRun{*std::move(updater), std::move(fields), config->simulation_summed_noise};
}

// The noise outlook's measurements (docs/results/privacy-utility.md, "Noise outlook"): the
// fedmf preset's Gaussian on ML-100K at epsilon 20, 10, 5, 2, 1 and 0.5 (seeds 1-4 at 5 and 1,
// seed 1 elsewhere), F1@10 over DP popularity's on the same seeds. Printed by
// `privacy-utility.sh outlook` and `privacy-utility.py`; checked there on a 600-user subsample.
const NewRunRegistrar kNewRunRegistrar(
    kAlgorithmName, StartDpmfRpRun,
    {.rounds = kDefaultRounds,
     .outlook_points = {{.noise_to_signal = 0.5731, .f1_over_dp_popularity = 1.742},
                        {.noise_to_signal = 0.996, .f1_over_dp_popularity = 1.584},
                        {.noise_to_signal = 1.793, .f1_over_dp_popularity = 1.418},
                        {.noise_to_signal = 4.041, .f1_over_dp_popularity = 1.078},
                        {.noise_to_signal = 7.604, .f1_over_dp_popularity = 0.817},
                        {.noise_to_signal = 14.41, .f1_over_dp_popularity = 0.285}}});

}  // namespace
}  // namespace fedmf::algorithms::dpmf_rp
