// ldp-gd's and ldp-gd-dr's fresh runs (new_run.h): their options (one message for both,
// fedmf.v1.LdpGdOptions, configs/ldp-gd/ and configs/ldp-gd-dr/) and the runtime's RunSettings
// make an LdpGdConfig, whose updater starts the run. Linked only into the binaries that start
// runs (fedmf-coordinator, fedmf-sim). The run-level --rounds is k, --epsilon the whole run's
// pure epsilon per user (--delta must be 0), --participation the cohort, --min_clients the
// fewest reports applied (0: 1). --secure_aggregation does not apply: a local-DP report is
// private on its own; the option secure_sum adds SecAgg as defence in depth.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/algorithms/ldp_gd/ldp_gd.h"
#include "common/algorithms/ldp_gd/updater.h"
#include "common/algorithms/new_run.h"
#include "common/util/event_log.h"
#include "fedmf/v1/ldp_gd.pb.h"
#include "google/protobuf/descriptor.h"

namespace fedmf::algorithms::ldp_gd {
namespace {

// Today's defaults (configs/ldp-gd*/default.textproto list the same): the paper's MovieLens
// settings, the published projection.
v1::LdpGdOptions DefaultOptions() {
  v1::LdpGdOptions o;
  o.set_rank(kDefaultRank);
  o.set_learning_rate(kDefaultLearningRate);
  o.set_lambda_u(kDefaultLambda);
  o.set_lambda_v(kDefaultLambda);
  o.set_correction(true);
  o.set_init_scale(kDefaultInitScale);
  o.set_secure_sum(false);
  o.set_score_lambda(kDefaultScoreLambda);
  o.set_score_kappa(kDefaultScoreKappa);
  o.set_projection_dim(0);
  o.set_projection_mode(v1::LdpGdOptions::PROJECTION_MODE_PAPER);
  o.set_projection_entries(v1::LDP_ENTRIES_GAUSSIAN);
  return o;
}

template <typename Value>
absl::Status Bad(absl::string_view algorithm, absl::string_view field, const Value& value,
                 absl::string_view need) {
  return absl::InvalidArgumentError(
      absl::StrCat(algorithm, ": ", field, "=", value, " must be ", need));
}

// An enum option's value as --set names it ("unbiased" for PROJECTION_MODE_UNBIASED).
template <typename Enum>
std::string Short(const google::protobuf::EnumDescriptor* type, Enum value) {
  const google::protobuf::EnumValueDescriptor* v = type->FindValueByNumber(value);
  if (v == nullptr) return absl::StrCat(static_cast<int>(value));
  std::string name = absl::AsciiStrToLower(v->name());
  // The prefix the values share: PROJECTION_MODE_, LDP_ENTRIES_.
  const std::string prefix = absl::AsciiStrToLower(type->value(0)->name());
  const size_t cut = prefix.rfind("unspecified");
  if (cut != std::string::npos && absl::StartsWith(name, prefix.substr(0, cut))) {
    name = name.substr(cut);
  }
  return name;
}

absl::StatusOr<v1::LdpGdConfig> ConfigFromOptions(const RunSettings& run,
                                                  const v1::LdpGdOptions& o, bool projected) {
  const absl::string_view name = projected ? kPrivateGdDr : kPrivateGd;
  if (absl::Status s = RequirePureEpsilon(run, "ldp-gd"); !s.ok()) return s;
  if (o.rank() < 1 || o.rank() > 1000) return Bad(name, "rank", o.rank(), "in [1, 1000]");
  if (!(o.learning_rate() > 0) || !std::isfinite(o.learning_rate())) {
    return Bad(name, "learning_rate", o.learning_rate(), "> 0");
  }
  if (!(o.lambda_u() >= 0) || !std::isfinite(o.lambda_u())) {
    return Bad(name, "lambda_u", o.lambda_u(), ">= 0");
  }
  if (!(o.lambda_v() >= 0) || !std::isfinite(o.lambda_v())) {
    return Bad(name, "lambda_v", o.lambda_v(), ">= 0");
  }
  if (!(o.init_scale() > 0) || !std::isfinite(o.init_scale())) {
    return Bad(name, "init_scale", o.init_scale(), "> 0");
  }
  if (!(o.score_lambda() > 0) || !std::isfinite(o.score_lambda())) {
    return Bad(name, "score_lambda", o.score_lambda(), "> 0");
  }
  if (!(o.score_kappa() >= 0) || !std::isfinite(o.score_kappa())) {
    return Bad(name, "score_kappa", o.score_kappa(), ">= 0");
  }
  if (o.projection_dim() < 0) return Bad(name, "projection_dim", o.projection_dim(), ">= 0");
  if (o.projection_mode() != v1::LdpGdOptions::PROJECTION_MODE_PAPER &&
      o.projection_mode() != v1::LdpGdOptions::PROJECTION_MODE_UNBIASED) {
    return Bad(name, "projection_mode",
               Short(v1::LdpGdOptions::ProjectionMode_descriptor(), o.projection_mode()),
               "paper or unbiased");
  }
  if (o.projection_entries() != v1::LDP_ENTRIES_GAUSSIAN &&
      o.projection_entries() != v1::LDP_ENTRIES_RADEMACHER) {
    return Bad(name, "projection_entries",
               Short(v1::LdpProjectionEntries_descriptor(), o.projection_entries()),
               "gaussian or rademacher");
  }
  if (!projected) {
    // One message serves both algorithms: a projection choice given to ldp-gd is a mistake.
    const v1::LdpGdOptions defaults = DefaultOptions();
    if (o.projection_dim() != defaults.projection_dim()) {
      return Bad(name, "projection_dim", o.projection_dim(), "0 (ldp-gd-dr only)");
    }
    if (o.projection_mode() != defaults.projection_mode()) {
      return Bad(name, "projection_mode",
                 Short(v1::LdpGdOptions::ProjectionMode_descriptor(), o.projection_mode()),
                 "paper, its default (ldp-gd-dr only)");
    }
    if (o.projection_entries() != defaults.projection_entries()) {
      return Bad(name, "projection_entries",
                 Short(v1::LdpProjectionEntries_descriptor(), o.projection_entries()),
                 "gaussian, its default (ldp-gd-dr only)");
    }
  }
  v1::LdpGdConfig c;
  c.set_num_users(run.num_users);
  c.set_num_items(run.num_items);
  c.set_rank(o.rank());
  c.set_rounds(run.rounds);
  c.set_epsilon(run.epsilon);
  c.set_learning_rate(o.learning_rate());
  c.set_lambda_u(o.lambda_u());
  c.set_lambda_v(o.lambda_v());
  c.set_correction(o.correction());
  c.set_seed(run.seed);
  c.set_init_scale(o.init_scale());
  c.set_cohort_size(SampledCohort(run));
  c.set_min_contributors(LocalDpMinContributors(run));
  c.set_secure_sum(o.secure_sum());
  c.set_score_lambda(o.score_lambda());
  c.set_score_kappa(o.score_kappa());
  c.set_rating_min(run.rating_scale.min);
  c.set_rating_max(run.rating_scale.max);
  if (!projected) {
    c.set_projection(v1::LDP_PROJECTION_NONE);
  } else {
    c.set_projection(o.projection_mode() == v1::LdpGdOptions::PROJECTION_MODE_UNBIASED
                         ? v1::LDP_PROJECTION_FRESH_TRANSPOSE
                         : v1::LDP_PROJECTION_FIXED_PSEUDOINVERSE);
    c.set_entries(o.projection_entries());
    const int q = o.projection_dim();
    c.set_projection_dim(q != 0 ? q
                                : std::max(1, static_cast<int>(std::lround(run.num_items / 10.0))));
    if (q != 0 && q >= run.num_items) {
      return Bad(name, "projection_dim", q,
                 absl::StrCat("in [1, num_items = ", run.num_items, ")"));
    }
  }
  if (absl::Status s = ValidateConfig(c); !s.ok()) return s;
  return c;
}

absl::StatusOr<NewRun> StartRun(const RunSettings& run, const v1::LdpGdOptions& options,
                                bool projected) {
  absl::StatusOr<v1::LdpGdConfig> c = ConfigFromOptions(run, options, projected);
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
    fields.emplace_back("projection_mode",
                        options.projection_mode() == v1::LdpGdOptions::PROJECTION_MODE_UNBIASED
                            ? "unbiased"
                            : "paper");
  }
  return NewRun{*std::move(updater), std::move(fields)};
}

absl::StatusOr<NewRun> StartGdRun(const RunSettings& run, const v1::LdpGdOptions& options) {
  return StartRun(run, options, false);
}
absl::StatusOr<NewRun> StartGdDrRun(const RunSettings& run, const v1::LdpGdOptions& options) {
  return StartRun(run, options, true);
}

const NewRunRegistrar kPrivateGdRun(kPrivateGd, DefaultOptions(), StartGdRun);
const NewRunRegistrar kPrivateGdDrRun(kPrivateGdDr, DefaultOptions(), StartGdDrRun);

}  // namespace
}  // namespace fedmf::algorithms::ldp_gd
