// The flags of lfl-sgdmf and the factory of its fresh runs (new_run.h). Linked only into the
// binaries that start runs (fedmf-coordinator, fedmf-sim). The run-level --rounds is T, --epsilon
// and --delta the whole run's user-level budget, --participation the cohort n of each round;
// n_min comes from --lfl_omega (--min_clients must stay 0). Secure aggregation is required.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "google/protobuf/empty.pb.h"
#include "absl/strings/str_cat.h"
#include "common/algorithms/lfl_sgdmf/lfl_sgdmf.h"
#include "common/algorithms/lfl_sgdmf/updater.h"
#include "common/algorithms/new_run.h"
#include "common/util/event_log.h"

ABSL_FLAG(std::string, lfl_noise, "two-phase",
          "lfl-sgdmf: two-phase (xi then -xi + xi', each half of the view's noise: sound), "
          "two-phase-paper (the paper's zeta_1 = 1/n_min, zeta_2 = 1/n_1; the ledger charges "
          "what the server's view really holds and the budget is not enforced), single (one "
          "SecAgg Gaussian phase) or none (non-private)");
ABSL_FLAG(double, lfl_omega, 0.3,
          "lfl-sgdmf: tolerated dropout fraction omega; a phase needs ceil((1 - omega) n) users");
ABSL_FLAG(int, lfl_rank, 20, "lfl-sgdmf: p, the embeddings' dimension (the paper's 20)");
ABSL_FLAG(double, lfl_learning_rate, 1,
          "lfl-sgdmf: V <- Pi(V - rate / n_1 * (noisy sum of the users' item gradients))");
ABSL_FLAG(int, lfl_pretrain_epochs, 20,
          "lfl-sgdmf: stage 1, passes of SGD on u_i over the user's ratings against V_0");
ABSL_FLAG(double, lfl_pretrain_learning_rate, 0.05, "lfl-sgdmf: stage 1's SGD step");
ABSL_FLAG(double, lfl_init_prediction, 3,
          "lfl-sgdmf: every initial <u_i, v_j> is about this (public initialization)");
ABSL_FLAG(double, lfl_scale, 1 << 16,
          "lfl-sgdmf: fixed point, integer units per real unit of an upload");
ABSL_FLAG(double, lfl_score_lambda, 0.25,
          "lfl-sgdmf: lambda of the user factor that scores items (client-local)");
ABSL_FLAG(double, lfl_score_kappa, 5, "lfl-sgdmf: kappa of the ranking user factor (client-local)");

namespace fedmf::algorithms::lfl_sgdmf {
namespace {

absl::StatusOr<v1::LflSgdmfConfig> ConfigFromFlags(const RunSettings& run) {
  absl::StatusOr<v1::LflNoiseMode> noise = ParseNoiseMode(absl::GetFlag(FLAGS_lfl_noise));
  if (!noise.ok()) return noise.status();
  if (!run.secure_aggregation) {
    return absl::InvalidArgumentError(
        "lfl-sgdmf: --secure_aggregation=false would show each user's gradient with a share of "
        "the noise only");
  }
  if (run.min_clients != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("lfl-sgdmf: --min_clients=", run.min_clients,
                     " must stay 0: n_min = ceil((1 - omega) n) comes from --lfl_omega"));
  }
  if (run.rating_scale.min < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("lfl-sgdmf needs ratings in [0, R] (embedding clipping), the data's scale "
                     "starts at ",
                     run.rating_scale.min));
  }
  v1::LflSgdmfConfig c;
  c.set_num_users(run.num_users);
  c.set_num_items(run.num_items);
  c.set_rank(absl::GetFlag(FLAGS_lfl_rank));
  c.set_rating_max(run.rating_scale.max);
  c.set_rounds(run.rounds);
  c.set_cohort_size(SampledCohort(run));
  c.set_omega(absl::GetFlag(FLAGS_lfl_omega));
  c.set_min_contributors(MinContributors(c.cohort_size(), c.omega()));
  c.set_noise(*noise);
  if (*noise != v1::LFL_NOISE_NONE) {
    c.set_epsilon(run.epsilon);
    c.set_delta(run.delta.value_or(kDefaultDelta));
  }
  c.set_learning_rate(absl::GetFlag(FLAGS_lfl_learning_rate));
  c.set_pretrain_epochs(absl::GetFlag(FLAGS_lfl_pretrain_epochs));
  c.set_pretrain_learning_rate(absl::GetFlag(FLAGS_lfl_pretrain_learning_rate));
  c.set_seed(run.seed);
  c.set_init_prediction(absl::GetFlag(FLAGS_lfl_init_prediction));
  c.set_scale(absl::GetFlag(FLAGS_lfl_scale));
  c.set_wrap_probability(1e-9);
  c.set_score_lambda(absl::GetFlag(FLAGS_lfl_score_lambda));
  c.set_score_kappa(absl::GetFlag(FLAGS_lfl_score_kappa));
  if (absl::Status s = ValidateConfig(c); !s.ok()) return s;
  return c;
}

absl::StatusOr<NewRun> StartLflSgdmfRun(const RunSettings& run, const google::protobuf::Empty& /*options*/) {
  absl::StatusOr<v1::LflSgdmfConfig> c = ConfigFromFlags(run);
  if (!c.ok()) return c.status();
  absl::StatusOr<std::unique_ptr<LflSgdmfUpdater>> updater = LflSgdmfUpdater::Create(*c);
  if (!updater.ok()) return updater.status();
  const v1::LflSgdmfConfig& calibrated = (*updater)->config();
  absl::StatusOr<v1::RoundPlan> plan = (*updater)->Plan();
  if (!plan.ok()) return plan.status();
  const int64_t n = calibrated.cohort_size();
  std::vector<std::pair<std::string, std::string>> fields = {
      {"noise", std::string(NoiseModeName(calibrated.noise()))},
      {"epsilon", EventValue(calibrated.epsilon())},
      {"delta", EventValue(calibrated.delta())},
      {"cohort", absl::StrCat(n)},
      {"omega", EventValue(calibrated.omega())},
      {"n_min", absl::StrCat(calibrated.min_contributors())},
      {"noise_std", EventValue(calibrated.noise_std())},
      {"l2_sensitivity", EventValue(Sensitivity(calibrated))},
      {"upload_length", absl::StrCat(plan->length())},
      {"sum_bits", absl::StrCat(plan->bits())}};
  if (HasPhase1(calibrated)) {
    // What the server's view of both sums holds with nobody lost (the best case for an
    // attacker), next to the paper's claim of sigma for the final sum.
    fields.emplace_back("view_noise_std_no_dropout", EventValue(ViewNoiseStddev(calibrated, n, n)));
    fields.emplace_back("paper_claimed_noise_std", EventValue(calibrated.noise_std()));
  }
  return NewRun{*std::move(updater), std::move(fields)};
}

const NewRunRegistrar kNewRunRegistrar(kAlgorithmName, google::protobuf::Empty(), StartLflSgdmfRun);

}  // namespace
}  // namespace fedmf::algorithms::lfl_sgdmf
