// The flags of ldp-gd and ldp-gd-dr and the factories of their fresh runs (new_run.h). Linked only
// into the binaries that start runs (fedmf-coordinator, fedmf-sim). The run-level --rounds is k,
// --epsilon the whole run's pure epsilon per user (--delta must be 0), --participation the
// cohort, --min_clients the fewest reports applied (0: 1). --secure_aggregation does not apply:
// a local-DP report is private on its own; --ldp_secure_sum adds SecAgg as defence in depth.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "google/protobuf/empty.pb.h"
#include "absl/strings/str_cat.h"
#include "common/algorithms/ldp_gd/ldp_gd.h"
#include "common/algorithms/ldp_gd/updater.h"
#include "common/algorithms/new_run.h"
#include "common/util/event_log.h"

ABSL_FLAG(int, ldp_rank, fedmf::algorithms::ldp_gd::kDefaultRank,
          "ldp-gd*: d, the factors' dimension (the paper's 15 for MovieLens)");
ABSL_FLAG(double, ldp_learning_rate, fedmf::algorithms::ldp_gd::kDefaultLearningRate,
          "ldp-gd*: gamma_0; round t steps by gamma_0 / (t + 1) (the paper's O(1/t))");
ABSL_FLAG(double, ldp_lambda_u, fedmf::algorithms::ldp_gd::kDefaultLambda,
          "ldp-gd*: user regularization (the paper's 1e-8)");
ABSL_FLAG(double, ldp_lambda_v, fedmf::algorithms::ldp_gd::kDefaultLambda,
          "ldp-gd*: item regularization (the paper's 1e-8)");
ABSL_FLAG(bool, ldp_correction, true,
          "ldp-gd*: the variance-reduction factor f_k = k^2 (V steps by gamma_t / k^2), on in the "
          "paper's experiments; false: f_k = 1");
ABSL_FLAG(double, ldp_init_scale, fedmf::algorithms::ldp_gd::kDefaultInitScale,
          "ldp-gd*: V and each u_i start N(0, scale^2) (public seed)");
ABSL_FLAG(bool, ldp_secure_sum, false,
          "ldp-gd*: sum the reports through SecAgg (defence in depth) instead of in the clear, "
          "where each report is checked to be exactly one coordinate of magnitude B");
ABSL_FLAG(double, ldp_score_lambda, fedmf::algorithms::ldp_gd::kDefaultScoreLambda,
          "ldp-gd*: lambda of the user factor that scores items (client-local, no privacy cost)");
ABSL_FLAG(double, ldp_score_kappa, fedmf::algorithms::ldp_gd::kDefaultScoreKappa,
          "ldp-gd*: kappa of the user factor that ranks items (client-local)");
ABSL_FLAG(int, ldp_projection_dim, 0, "ldp-gd-dr: q, rows of Phi (0: m / 10, rounded)");
ABSL_FLAG(std::string, ldp_projection_mode, "paper",
          "ldp-gd-dr: paper (one Phi for the run, Phi^+ recovery, as published) or unbiased (a "
          "fresh public Phi_t per round, Phi_t^T recovery)");
ABSL_FLAG(std::string, ldp_projection_entries, "gaussian", "ldp-gd-dr: gaussian or rademacher");

namespace fedmf::algorithms::ldp_gd {
namespace {

absl::StatusOr<v1::LdpGdConfig> ConfigFromFlags(const RunSettings& run, bool projected) {
  if (absl::Status s = RequirePureEpsilon(run, "ldp-gd"); !s.ok()) return s;
  v1::LdpGdConfig c;
  c.set_num_users(run.num_users);
  c.set_num_items(run.num_items);
  c.set_rank(absl::GetFlag(FLAGS_ldp_rank));
  c.set_rounds(run.rounds);
  c.set_epsilon(run.epsilon);
  c.set_learning_rate(absl::GetFlag(FLAGS_ldp_learning_rate));
  c.set_lambda_u(absl::GetFlag(FLAGS_ldp_lambda_u));
  c.set_lambda_v(absl::GetFlag(FLAGS_ldp_lambda_v));
  c.set_correction(absl::GetFlag(FLAGS_ldp_correction));
  c.set_seed(run.seed);
  c.set_init_scale(absl::GetFlag(FLAGS_ldp_init_scale));
  c.set_cohort_size(SampledCohort(run));
  c.set_min_contributors(LocalDpMinContributors(run));
  c.set_secure_sum(absl::GetFlag(FLAGS_ldp_secure_sum));
  c.set_score_lambda(absl::GetFlag(FLAGS_ldp_score_lambda));
  c.set_score_kappa(absl::GetFlag(FLAGS_ldp_score_kappa));
  c.set_rating_min(run.rating_scale.min);
  c.set_rating_max(run.rating_scale.max);
  if (!projected) {
    c.set_projection(v1::LDP_PROJECTION_NONE);
  } else {
    const std::string mode = absl::GetFlag(FLAGS_ldp_projection_mode);
    if (mode == "paper") {
      c.set_projection(v1::LDP_PROJECTION_FIXED_PSEUDOINVERSE);
    } else if (mode == "unbiased") {
      c.set_projection(v1::LDP_PROJECTION_FRESH_TRANSPOSE);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("--ldp_projection_mode='", mode, "': expected paper or unbiased"));
    }
    const std::string entries = absl::GetFlag(FLAGS_ldp_projection_entries);
    if (entries == "gaussian") {
      c.set_entries(v1::LDP_ENTRIES_GAUSSIAN);
    } else if (entries == "rademacher") {
      c.set_entries(v1::LDP_ENTRIES_RADEMACHER);
    } else {
      return absl::InvalidArgumentError(absl::StrCat("--ldp_projection_entries='", entries,
                                                     "': expected gaussian or rademacher"));
    }
    const int q = absl::GetFlag(FLAGS_ldp_projection_dim);
    c.set_projection_dim(q != 0 ? q
                                : std::max(1, static_cast<int>(std::lround(run.num_items / 10.0))));
  }
  if (absl::Status s = ValidateConfig(c); !s.ok()) return s;
  return c;
}

absl::StatusOr<NewRun> StartRun(const RunSettings& run, bool projected) {
  absl::StatusOr<v1::LdpGdConfig> c = ConfigFromFlags(run, projected);
  if (!c.ok()) return c.status();
  absl::StatusOr<std::unique_ptr<LdpGdUpdater>> updater = LdpGdUpdater::Create(*c);
  if (!updater.ok()) return updater.status();
  std::vector<std::pair<std::string, std::string>> fields = {
      {"epsilon", EventValue(c->epsilon())},
      {"epsilon_per_round", EventValue(RoundEpsilon(*c))},
      {"rounds", absl::StrCat(c->rounds())},
      {"report_coordinates", absl::StrCat(ReportDim(*c))},
      {"magnitude_b", EventValue(dp::BinaryRrMagnitude(ReportDim(*c), RoundEpsilon(*c)))},
      {"correction", c->correction() ? "k^2" : "off"},
      {"cohort", absl::StrCat(c->cohort_size())},
      {"combination", c->secure_sum() ? "secure-sum" : "clear"}};
  if (projected) {
    fields.emplace_back("projection_dim", absl::StrCat(c->projection_dim()));
    fields.emplace_back("projection_mode", absl::GetFlag(FLAGS_ldp_projection_mode));
  }
  return NewRun{*std::move(updater), std::move(fields)};
}

absl::StatusOr<NewRun> StartGdRun(const RunSettings& run, const google::protobuf::Empty& /*options*/) {
  return StartRun(run, false);
}
absl::StatusOr<NewRun> StartGdDrRun(const RunSettings& run, const google::protobuf::Empty& /*options*/) {
  return StartRun(run, true);
}

const NewRunRegistrar kPrivateGdRun(kPrivateGd, google::protobuf::Empty(), StartGdRun);
const NewRunRegistrar kPrivateGdDrRun(kPrivateGdDr, google::protobuf::Empty(), StartGdDrRun);

}  // namespace
}  // namespace fedmf::algorithms::ldp_gd
