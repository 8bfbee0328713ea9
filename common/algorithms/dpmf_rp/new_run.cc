// DPMF-RP's fresh run (new_run.h): its options (fedmf.v1.DpmfRpOptions, whose defaults are the
// fedmf preset below) and the runtime's RunSettings make a DpmfRpConfig, whose updater starts the
// run. Linked only into the binaries that start runs (fedmf-coordinator, fedmf-sim).
#include "common/algorithms/new_run.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/dpmf_rp/config.h"
#include "common/algorithms/dpmf_rp/updater.h"
#include "common/util/event_log.h"
#include "fedmf/v1/dpmf_rp.pb.h"

namespace fedmf::algorithms::dpmf_rp {
namespace {

// The fedmf preset (configs/dpmf-rp/fedmf.textproto lists the same): the best configuration
// measured at whole-run, user-level (5, 1e-5)-DP on MovieLens 100K (docs/results/
// privacy-utility.md: the Gaussian mechanism, every user every round, full item model with a
// fresh S per round, m/p = 3, mu = 0.01, Adam step 0.2, L2 clip C = 0.016, ranking kappa 5; PBM,
// when asked for, rotated_l2 with gamma 3 charged by the L2 shift, docs/results/dpmf-rp.md);
// the model (rank, lambda, kappa, B1, e) is the paper's (Section 6.1.3).
v1::DpmfRpOptions DefaultOptions() {
  v1::DpmfRpOptions o;
  o.set_mechanism(v1::DpmfRpConfig::MECHANISM_GAUSSIAN);
  o.set_projection(v1::DpmfRpConfig::PROJECTION_SPARSE);
  o.set_compression(3);
  o.set_item_model(v1::DpmfRpConfig::ITEM_MODEL_FULL);
  o.set_max_q(16);
  o.set_rank(14);
  o.set_learning_rate(0.2);
  o.set_lambda(0.25);
  o.set_mu(0.01);
  o.set_kappa(15);
  o.set_ranking_kappa(5);
  o.set_user_l1_clip(0.001);
  o.set_error_clip(1);
  o.set_contribution_clip(0.016);  // C = e (1 + kappa) B1, an L2 clip
  o.set_pbm_geometry(v1::DpmfRpConfig::PBM_GEOMETRY_ROTATED_L2);
  o.set_pbm_clip_multiplier(3);
  o.set_pbm_accounting(v1::DpmfRpConfig::PBM_ACCOUNTING_L2);
  o.set_ddg_bits(20);
  o.set_ddg_clip_multiplier(3);
  o.set_noise_schedule(v1::DpmfRpConfig::NOISE_SCHEDULE_CONSTANT);
  o.set_participation(1);
  o.set_delta(kDefaultDelta);
  return o;
}

// The run's configuration: `options` with the run settings (--participation and --delta win over
// the options' when given); InvalidArgument naming the field and value of an out-of-range option.
absl::StatusOr<DpmfRpConfig> ConfigFromOptions(const RunSettings& run,
                                               const v1::DpmfRpOptions& options) {
  v1::DpmfRpConfig proto;
  proto.set_num_users(run.num_users);
  proto.set_num_items(run.num_items);
  proto.set_rank(options.rank());
  proto.set_lambda(options.lambda());
  proto.set_mu(options.mu());
  proto.set_kappa(options.kappa());
  proto.set_user_l1_clip(options.user_l1_clip());
  proto.set_error_clip(options.error_clip());
  proto.set_mechanism(options.mechanism());
  proto.set_projection(options.projection());
  proto.set_compression(options.compression());
  proto.set_secure_aggregation(run.secure_aggregation);
  proto.set_participation(run.participation.value_or(options.participation()));
  proto.set_min_clients(run.min_clients);
  proto.set_contribution_clip(options.contribution_clip());
  proto.set_epsilon(run.epsilon);
  proto.set_delta(run.delta.value_or(options.delta()));
  proto.set_rdp_order(2);
  proto.set_rounds(run.rounds);
  proto.set_max_q(options.max_q());
  const DpmfRpConfig defaults;
  proto.set_fixed_point_bits(defaults.fixed_point_bits);
  proto.set_wrap_probability(defaults.wrap_probability);
  proto.set_learning_rate(options.learning_rate());
  proto.set_beta1(defaults.adam.beta1);
  proto.set_beta2(defaults.adam.beta2);
  proto.set_adam_epsilon(defaults.adam.epsilon);
  proto.set_init_scale(defaults.init_scale);
  proto.set_seed(run.seed);
  proto.set_item_model(options.item_model());
  proto.set_pbm_geometry(options.pbm_geometry());
  proto.set_pbm_clip_multiplier(options.pbm_clip_multiplier());
  if (options.ranking_kappa() >= 0) proto.set_ranking_kappa(options.ranking_kappa());
  proto.set_rating_min(run.rating_scale.min);
  proto.set_rating_max(run.rating_scale.max);
  proto.set_ddg_bits(options.ddg_bits());
  proto.set_ddg_clip_multiplier(options.ddg_clip_multiplier());
  proto.set_pbm_accounting(options.pbm_accounting());
  proto.set_noise_schedule(options.noise_schedule());
  proto.set_simulation_summed_noise(run.simulation_summed_noise);
  return FromProto(proto, "options");
}

absl::StatusOr<NewRun> StartDpmfRpRun(const RunSettings& run, const v1::DpmfRpOptions& options) {
  absl::StatusOr<DpmfRpConfig> made = ConfigFromOptions(run, options);
  if (!made.ok()) return made.status();
  const DpmfRpConfig* config = &*made;
  absl::StatusOr<std::unique_ptr<DpmfRpUpdater>> updater =
      DpmfRpUpdater::Create(*config, run.start_item_factors);
  if (!updater.ok()) return updater.status();
  const v1::DpmfRpMechanism& mechanism = (*updater)->mechanism();
  // Round 0's plan: what one client uploads per round (length values of client_bits bits).
  absl::StatusOr<v1::RoundPlan> plan = (*updater)->Plan();
  if (!plan.ok()) return plan.status();
  std::vector<std::pair<std::string, std::string>> fields = {
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
// seed 1 elsewhere), F1@10 over DP popularity's on the same seeds. Made by
// `tools/experiments/run.py privacy-utility` (its outlook rows and tables); checked there on a
// 600-user subsample.
const NewRunRegistrar kNewRunRegistrar(
    kAlgorithmName, DefaultOptions(), StartDpmfRpRun,
    {.rounds = kDefaultRounds,
     .outlook_points = {{.noise_to_signal = 0.5731, .f1_over_dp_popularity = 1.742},
                        {.noise_to_signal = 0.996, .f1_over_dp_popularity = 1.584},
                        {.noise_to_signal = 1.793, .f1_over_dp_popularity = 1.418},
                        {.noise_to_signal = 4.041, .f1_over_dp_popularity = 1.078},
                        {.noise_to_signal = 7.604, .f1_over_dp_popularity = 0.817},
                        {.noise_to_signal = 14.41, .f1_over_dp_popularity = 0.285}},
     .starts_from_item_factors = true});

}  // namespace
}  // namespace fedmf::algorithms::dpmf_rp
