// DPMF-RP's own command-line flags and the factory of a fresh DPMF-RP run (new_run.h): the flags
// and the runtime's RunSettings make a DpmfRpConfig, whose updater starts the run. Linked only
// into the binaries that start runs (fedmf-coordinator, fedmf-sim).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "common/algorithms/dpmf_rp/config.h"
#include "common/algorithms/dpmf_rp/updater.h"
#include "common/algorithms/new_run.h"
#include "common/util/event_log.h"

ABSL_FLAG(std::string, mechanism, "pbm",
          "pbm, gaussian, ddg (distributed discrete Gaussian) or none");
ABSL_FLAG(std::string, projection, "sparse", "sparse or none");
ABSL_FLAG(double, compression, 3, "m/p of the sparse projection");
ABSL_FLAG(std::string, item_model, "compressed", "compressed (the paper's B = S V) or full");
ABSL_FLAG(int64_t, max_q, 16, "PBM: largest number of trials");
ABSL_FLAG(int, rank, 14, "k");
ABSL_FLAG(double, learning_rate, 0.05, "Adam step size");
// Model and clipping hyper-parameters; defaults are DpmfRpConfig's (the paper's, Section 6.1.3).
ABSL_FLAG(double, lambda, fedmf::algorithms::dpmf_rp::DpmfRpConfig().lambda,
          "user regularization (eq. 5)");
ABSL_FLAG(double, mu, fedmf::algorithms::dpmf_rp::DpmfRpConfig().mu,
          "item regularization applied by the server (eq. 7)");
ABSL_FLAG(double, kappa, fedmf::algorithms::dpmf_rp::DpmfRpConfig().kappa,
          "observed ratings weigh 1 + kappa, unobserved 1 (eq. 4)");
ABSL_FLAG(double, ranking_kappa, -1,
          "kappa of the user factor that ranks items for recommendations and ranking metrics "
          "(client-local, no privacy cost); negative: --kappa");
ABSL_FLAG(double, user_l1_clip, fedmf::algorithms::dpmf_rp::DpmfRpConfig().user_l1_clip,
          "B1: L1 clip of the user factor in the gradient (eq. 17)");
ABSL_FLAG(double, error_clip, fedmf::algorithms::dpmf_rp::DpmfRpConfig().error_clip,
          "e: rating errors are clipped to [-e, e] (eq. 16)");
ABSL_FLAG(double, contribution_clip, 0,
          "clip of one contribution X (PBM column_l1: L1; rotated_l2 and gaussian: L2); 0: the "
          "geometry's default (docs/algorithms.md)");
ABSL_FLAG(std::string, pbm_geometry, "column_l1",
          "column_l1 (the paper's L1 clip + FlatMat per column) or rotated_l2 (L2 clip, one "
          "rotation of the whole vector; far less noise for the same epsilon)");
ABSL_FLAG(double, pbm_clip_multiplier,
          fedmf::algorithms::dpmf_rp::DpmfRpConfig().pbm_clip_multiplier,
          "gamma of rotated_l2: coordinates are clamped to gamma C / sqrt(D)");
ABSL_FLAG(int, ddg_bits, fedmf::algorithms::dpmf_rp::DpmfRpConfig().ddg_bits,
          "ddg: bits per coordinate of the secure sum (the largest scale that fits is used)");
ABSL_FLAG(double, ddg_clip_multiplier,
          fedmf::algorithms::dpmf_rp::DpmfRpConfig().ddg_clip_multiplier,
          "ddg: rotated coordinates are clamped to this times C / sqrt(D)");
ABSL_FLAG(std::string, pbm_accounting, "l2",
          "l2 (charge a PBM round by the L2 shift of the whole vector, which the clip bounds) or "
          "coordinate (every coordinate over its whole range: the paper's eq. 20, conservative)");

namespace fedmf::algorithms::dpmf_rp {
namespace {

// DPMF-RP for `run` and the flags above; InvalidArgument for a bad value.
absl::StatusOr<DpmfRpConfig> ConfigFromFlags(const RunSettings& run) {
  DpmfRpConfig c;
  c.num_users = run.num_users;
  c.num_items = run.num_items;
  c.rank = absl::GetFlag(FLAGS_rank);
  absl::StatusOr<Mechanism> mechanism = ParseMechanism(absl::GetFlag(FLAGS_mechanism));
  if (!mechanism.ok()) return mechanism.status();
  c.mechanism = *mechanism;
  absl::StatusOr<Projection> projection = ParseProjection(absl::GetFlag(FLAGS_projection));
  if (!projection.ok()) return projection.status();
  c.projection = *projection;
  absl::StatusOr<ItemModel> model = ParseItemModel(absl::GetFlag(FLAGS_item_model));
  if (!model.ok()) return model.status();
  c.item_model = *model;
  c.compression = absl::GetFlag(FLAGS_compression);
  c.participation = run.participation;
  c.min_clients = run.min_clients;
  c.secure_aggregation = run.secure_aggregation;
  c.epsilon = run.epsilon;
  c.delta = run.delta;
  c.rounds = run.rounds;
  c.max_q = absl::GetFlag(FLAGS_max_q);
  c.adam.learning_rate = absl::GetFlag(FLAGS_learning_rate);
  c.lambda = absl::GetFlag(FLAGS_lambda);
  c.mu = absl::GetFlag(FLAGS_mu);
  c.kappa = absl::GetFlag(FLAGS_kappa);
  if (const double k = absl::GetFlag(FLAGS_ranking_kappa); k >= 0) c.ranking_kappa = k;
  c.rating_scale = run.rating_scale;
  c.user_l1_clip = absl::GetFlag(FLAGS_user_l1_clip);
  c.error_clip = absl::GetFlag(FLAGS_error_clip);
  c.contribution_clip = absl::GetFlag(FLAGS_contribution_clip);
  absl::StatusOr<PbmGeometry> geometry = ParsePbmGeometry(absl::GetFlag(FLAGS_pbm_geometry));
  if (!geometry.ok()) return geometry.status();
  c.pbm_geometry = *geometry;
  c.pbm_clip_multiplier = absl::GetFlag(FLAGS_pbm_clip_multiplier);
  c.ddg_bits = absl::GetFlag(FLAGS_ddg_bits);
  c.ddg_clip_multiplier = absl::GetFlag(FLAGS_ddg_clip_multiplier);
  absl::StatusOr<PbmAccounting> accounting =
      ParsePbmAccounting(absl::GetFlag(FLAGS_pbm_accounting));
  if (!accounting.ok()) return accounting.status();
  c.pbm_accounting = *accounting;
  c.seed = run.seed;
  if (absl::Status s = ValidateConfig(c); !s.ok()) return s;
  return c;
}

absl::StatusOr<NewRun> StartDpmfRpRun(const RunSettings& run) {
  absl::StatusOr<DpmfRpConfig> config = ConfigFromFlags(run);
  if (!config.ok()) return config.status();
  absl::StatusOr<std::unique_ptr<DpmfRpUpdater>> updater = DpmfRpUpdater::Create(*config);
  if (!updater.ok()) return updater.status();
  const v1::DpmfRpMechanism& mechanism = (*updater)->mechanism();
  // Round 0's plan: what one client uploads per round (length values of client_bits bits).
  absl::StatusOr<v1::RoundPlan> plan = (*updater)->Plan();
  if (!plan.ok()) return plan.status();
  std::vector<std::pair<std::string, std::string>> fields = {
      {"mechanism", absl::GetFlag(FLAGS_mechanism)},
      {"item_model", absl::GetFlag(FLAGS_item_model)},
      {"secure_aggregation", config->secure_aggregation ? "on" : "off"},
      {"epsilon", EventValue(config->epsilon)},
      {"rounds", absl::StrCat(config->rounds)},
      {"cohort", absl::StrCat(CohortSize(*config))},
      {"n_min", absl::StrCat(MinContributors(*config))},
      {"pbm_geometry", std::string(PbmGeometryName(config->pbm_geometry))},
      {"pbm_accounting", std::string(PbmAccountingName(config->pbm_accounting))},
      {"pbm_theta", EventValue(mechanism.pbm_theta())},
      {"pbm_q", absl::StrCat(mechanism.pbm_q())},
      {"gaussian_noise_std", EventValue(mechanism.gaussian_noise_std())},
      {"ddg_noise_std", EventValue(mechanism.ddg_noise_std())},
      {"ddg_scale", EventValue(mechanism.ddg_scale())},
      {"upload_length", absl::StrCat(plan->length())},
      {"client_bits", absl::StrCat(plan->client_bits())},
      {"sum_bits", absl::StrCat(plan->bits())}};
  return NewRun{*std::move(updater), std::move(fields)};
}

const NewRunRegistrar kNewRunRegistrar(kAlgorithmName, StartDpmfRpRun);

}  // namespace
}  // namespace fedmf::algorithms::dpmf_rp
