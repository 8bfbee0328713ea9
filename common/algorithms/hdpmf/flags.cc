// The flags of hdpmf and the factory of its fresh runs (new_run.h). Linked only into the binaries
// that start runs (fedmf-coordinator, fedmf-sim). The run-level --rounds is T (epochs),
// --epsilon the whole run's largest pure epsilon (round t releases eps / T; the paper's eps = 1
// per epoch over T = 100 is --epsilon=100), --delta must be 0, --participation the cohort,
// --min_clients the fewest honest clients the noise shares assume (0: the whole cohort).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "google/protobuf/empty.pb.h"
#include "absl/strings/str_cat.h"
#include "common/algorithms/hdpmf/hdpmf.h"
#include "common/algorithms/hdpmf/privacy_spec.h"
#include "common/algorithms/hdpmf/updater.h"
#include "common/algorithms/new_run.h"
#include "common/util/event_log.h"

ABSL_FLAG(std::string, hdpmf_mode, "sound",
          "hdpmf: sound (a user's whole gradient clipped to L1 norm --hdpmf_clip and scaled by "
          "beta_i, noise per user) or paper (stretched ratings, noise per rating, as published)");
ABSL_FLAG(std::string, hdpmf_variant, "hdpmf",
          "hdpmf: hdpmf, or a paper-mode baseline: dpmf (no stretching, uniform noise at the "
          "smallest weight), mf (no noise), pdpmf (Zhang et al.'s sample mechanism) or hdpmf-r "
          "(trained as hdpmf, predicting without rescaling: Fig. 8's ablation)");
ABSL_FLAG(int, hdpmf_rank, fedmf::algorithms::hdpmf::kDefaultRank, "hdpmf: K, the factors' size");
ABSL_FLAG(double, hdpmf_learning_rate, fedmf::algorithms::hdpmf::kDefaultLearningRate,
          "hdpmf: eta_0; divided by 5 at 25% and again at 75% of the epochs");
ABSL_FLAG(double, hdpmf_lambda, fedmf::algorithms::hdpmf::kDefaultLambda,
          "hdpmf: lambda of ||U||^2 + ||V||^2 (> 0)");
ABSL_FLAG(double, hdpmf_score_lambda, fedmf::algorithms::hdpmf::kDefaultScoreLambda,
          "hdpmf: ridge lambda of the user factor that predicts (client-local, no privacy cost)");
ABSL_FLAG(double, hdpmf_clip, fedmf::algorithms::hdpmf::kDefaultClip,
          "hdpmf sound mode: C, the L1 clip of a user's m x K gradient");
ABSL_FLAG(double, hdpmf_init_scale, fedmf::algorithms::hdpmf::kDefaultInitScale,
          "hdpmf: the N(0, scale^2) part of V's and each u_i's start (public seed)");
ABSL_FLAG(double, hdpmf_init_center, -1,
          "hdpmf: every prediction u_i^T v_j starts near this (V's coordinates center / sqrt(K), "
          "u's 1 / sqrt(K)); 0: zero-mean factors; negative: the rating scale's midpoint, times "
          "the specification's mean weights when the ratings are stretched");
ABSL_FLAG(double, hdpmf_f_uc, 0.54, "hdpmf privacy spec: fraction of conservative users");
ABSL_FLAG(double, hdpmf_f_um, 0.37, "hdpmf privacy spec: fraction of moderate users");
ABSL_FLAG(double, hdpmf_eps_uc, 0.1,
          "hdpmf privacy spec: conservative users' weights U[eps_uc, eps_um)");
ABSL_FLAG(double, hdpmf_eps_um, 0.5, "hdpmf privacy spec: moderate users' weights U[eps_um, 1)");
ABSL_FLAG(double, hdpmf_f_ic, 0.33, "hdpmf privacy spec: fraction of highly sensitive items");
ABSL_FLAG(double, hdpmf_f_im, 0.33, "hdpmf privacy spec: fraction of moderately sensitive items");
ABSL_FLAG(double, hdpmf_eps_ic, 0.1,
          "hdpmf privacy spec: highly sensitive items' U[eps_ic, eps_im)");
ABSL_FLAG(double, hdpmf_eps_im, 0.5,
          "hdpmf privacy spec: moderately sensitive items' U[eps_im, 1)");
ABSL_FLAG(uint64_t, hdpmf_spec_seed, 0,
          "hdpmf privacy spec: seed of the group assignment and weights (0: the run's --seed)");

namespace fedmf::algorithms::hdpmf {
namespace {

absl::StatusOr<v1::HdpmfConfig> ConfigFromFlags(const RunSettings& run) {
  if (absl::Status s = RequirePureEpsilon(run, kName); !s.ok()) return s;
  if (!run.secure_aggregation) {
    return absl::InvalidArgumentError(
        "hdpmf: --secure_aggregation=false; its noise is shared among the clients of a secure sum");
  }
  v1::HdpmfConfig c;
  c.set_num_users(run.num_users);
  c.set_num_items(run.num_items);
  c.set_rank(absl::GetFlag(FLAGS_hdpmf_rank));
  c.set_rounds(run.rounds);
  c.set_epsilon(run.epsilon);
  const std::string mode = absl::GetFlag(FLAGS_hdpmf_mode);
  if (mode == "paper") {
    c.set_mode(v1::HDPMF_MODE_PAPER);
  } else if (mode == "sound") {
    c.set_mode(v1::HDPMF_MODE_SOUND);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("--hdpmf_mode='", mode, "': expected paper or sound"));
  }
  const std::string variant = absl::GetFlag(FLAGS_hdpmf_variant);
  if (variant == "hdpmf") {
    c.set_variant(v1::HDPMF_VARIANT_HDPMF);
  } else if (variant == "dpmf") {
    c.set_variant(v1::HDPMF_VARIANT_DPMF);
  } else if (variant == "mf") {
    c.set_variant(v1::HDPMF_VARIANT_MF);
  } else if (variant == "pdpmf") {
    c.set_variant(v1::HDPMF_VARIANT_PDPMF);
  } else if (variant == "hdpmf-r") {
    c.set_variant(v1::HDPMF_VARIANT_HDPMF);
    c.set_skip_rescaling(true);
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "--hdpmf_variant='", variant, "': expected hdpmf, dpmf, mf, pdpmf or hdpmf-r"));
  }
  c.set_learning_rate(absl::GetFlag(FLAGS_hdpmf_learning_rate));
  c.set_lambda(absl::GetFlag(FLAGS_hdpmf_lambda));
  c.set_rating_min(run.rating_scale.min);  // Delta = rating_max - rating_min
  c.set_rating_max(run.rating_scale.max);
  c.set_clip(absl::GetFlag(FLAGS_hdpmf_clip));
  c.set_score_lambda(absl::GetFlag(FLAGS_hdpmf_score_lambda));
  c.set_seed(run.seed);
  c.set_init_scale(absl::GetFlag(FLAGS_hdpmf_init_scale));
  c.set_cohort_size(SampledCohort(run));
  c.set_min_contributors(run.min_clients > 0 ? run.min_clients : c.cohort_size());
  v1::HdpmfPrivacySpec& s = *c.mutable_spec();
  s.set_user_f_con(absl::GetFlag(FLAGS_hdpmf_f_uc));
  s.set_user_f_mod(absl::GetFlag(FLAGS_hdpmf_f_um));
  s.set_user_w_con(absl::GetFlag(FLAGS_hdpmf_eps_uc));
  s.set_user_w_mod(absl::GetFlag(FLAGS_hdpmf_eps_um));
  s.set_item_f_con(absl::GetFlag(FLAGS_hdpmf_f_ic));
  s.set_item_f_mod(absl::GetFlag(FLAGS_hdpmf_f_im));
  s.set_item_w_con(absl::GetFlag(FLAGS_hdpmf_eps_ic));
  s.set_item_w_mod(absl::GetFlag(FLAGS_hdpmf_eps_im));
  const uint64_t spec_seed = absl::GetFlag(FLAGS_hdpmf_spec_seed);
  s.set_seed(spec_seed != 0 ? spec_seed : run.seed);
  const double center = absl::GetFlag(FLAGS_hdpmf_init_center);
  c.set_init_center(center >= 0 ? center : DefaultInitCenter(c));
  if (absl::Status st = ValidateConfig(c); !st.ok()) return st;
  return c;
}

absl::StatusOr<NewRun> StartRun(const RunSettings& run, const google::protobuf::Empty& /*options*/) {
  absl::StatusOr<v1::HdpmfConfig> c = ConfigFromFlags(run);
  if (!c.ok()) return c.status();
  absl::StatusOr<std::unique_ptr<HdpmfUpdater>> updater = HdpmfUpdater::Create(*c);
  if (!updater.ok()) return updater.status();
  std::vector<std::pair<std::string, std::string>> fields = {
      {"mode", absl::GetFlag(FLAGS_hdpmf_mode)},
      {"variant", absl::GetFlag(FLAGS_hdpmf_variant)},
      {"epsilon", EventValue(c->epsilon())},
      {"epsilon_per_round", EventValue(RoundEpsilon(*c))},
      {"noise_scale", EventValue(NoiseScale(*c))},
      {"rounds", absl::StrCat(c->rounds())},
      {"cohort", absl::StrCat(c->cohort_size())},
      {"n_min", absl::StrCat(c->min_contributors())},
      {"spec_seed", absl::StrCat(c->spec().seed())}};
  return NewRun{*std::move(updater), std::move(fields)};
}

const NewRunRegistrar kRun(kName, google::protobuf::Empty(), StartRun);

}  // namespace
}  // namespace fedmf::algorithms::hdpmf
