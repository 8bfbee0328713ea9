// hdpmf's fresh run (new_run.h): its options (fedmf.v1.HdpmfOptions, configs/hdpmf/) and the
// runtime's RunSettings make an HdpmfConfig, whose updater starts the run. Linked only into the
// binaries that start runs (fedmf-coordinator, fedmf-sim). The run-level --rounds is T (epochs),
// --epsilon the whole run's largest pure epsilon (round t releases eps / T; the paper's eps = 1
// per epoch over T = 100 is --epsilon=100), --delta must be 0, --participation the cohort,
// --min_clients the fewest honest clients the noise shares assume (0: the whole cohort). fedmf-sim
// --summed_noise is honoured by the noisy variants (the updater draws each sum's noise, hdpmf.h)
// and left to the runtime to refuse for mf, which has none.
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"
#include "common/algorithms/hdpmf/hdpmf.h"
#include "common/algorithms/hdpmf/privacy_spec.h"
#include "common/algorithms/hdpmf/updater.h"
#include "common/algorithms/new_run.h"
#include "common/util/event_log.h"
#include "fedmf/v1/hdpmf.pb.h"

namespace fedmf::algorithms::hdpmf {
namespace {

// Today's defaults (configs/hdpmf/default.textproto lists the same): the sound mode with the
// paper's model and its Table 2 privacy specification.
v1::HdpmfOptions DefaultOptions() {
  v1::HdpmfOptions o;
  o.set_mode(v1::HDPMF_MODE_SOUND);
  o.set_variant(v1::HdpmfOptions::VARIANT_HDPMF);
  o.set_rank(kDefaultRank);
  o.set_learning_rate(kDefaultLearningRate);
  o.set_lambda(kDefaultLambda);
  o.set_score_lambda(kDefaultScoreLambda);
  o.set_clip(kDefaultClip);
  o.set_init_scale(kDefaultInitScale);
  o.set_init_center(-1);
  o.set_f_uc(0.54);
  o.set_f_um(0.37);
  o.set_eps_uc(0.1);
  o.set_eps_um(0.5);
  o.set_f_ic(0.33);
  o.set_f_im(0.33);
  o.set_eps_ic(0.1);
  o.set_eps_im(0.5);
  o.set_spec_seed(0);
  o.set_skip_user_projection(false);
  o.set_skip_prediction_clamp(false);
  o.set_pdpmf_mean_weight(0);
  o.set_score_with_trained_factor(false);
  return o;
}

absl::Status Bad(absl::string_view field, double value, absl::string_view need) {
  return absl::InvalidArgumentError(
      absl::StrCat("hdpmf: ", field, "=", value, " must be ", need));
}

// The options' own ranges, named as the options name them (the config's checks follow).
absl::Status CheckOptions(const v1::HdpmfOptions& o) {
  if (o.mode() != v1::HDPMF_MODE_PAPER && o.mode() != v1::HDPMF_MODE_SOUND) {
    return Bad("mode", o.mode(), "paper or sound");
  }
  if (o.variant() < v1::HdpmfOptions::VARIANT_HDPMF ||
      o.variant() > v1::HdpmfOptions::VARIANT_HDPMF_R) {
    return Bad("variant", o.variant(), "hdpmf, dpmf, mf, pdpmf or hdpmf-r");
  }
  if (o.rank() < 1 || o.rank() > 1000) return Bad("rank", o.rank(), "in [1, 1000]");
  if (!(o.learning_rate() > 0) || !std::isfinite(o.learning_rate())) {
    return Bad("learning_rate", o.learning_rate(), "> 0");
  }
  if (!(o.lambda() > 0) || !std::isfinite(o.lambda())) return Bad("lambda", o.lambda(), "> 0");
  if (!(o.score_lambda() > 0) || !std::isfinite(o.score_lambda())) {
    return Bad("score_lambda", o.score_lambda(), "> 0");
  }
  if (!(o.clip() > 0) || !std::isfinite(o.clip())) return Bad("clip", o.clip(), "> 0");
  if (!(o.init_scale() > 0) || !std::isfinite(o.init_scale())) {
    return Bad("init_scale", o.init_scale(), "> 0");
  }
  if (!std::isfinite(o.init_center())) return Bad("init_center", o.init_center(), "finite");
  if (!(o.f_uc() >= 0 && o.f_uc() <= 1)) return Bad("f_uc", o.f_uc(), "in [0, 1]");
  if (!(o.f_um() >= 0 && o.f_uc() + o.f_um() <= 1)) return Bad("f_um", o.f_um(), "in [0, 1 - f_uc]");
  if (!(o.eps_uc() > 0 && o.eps_uc() <= 1)) return Bad("eps_uc", o.eps_uc(), "in (0, 1]");
  if (!(o.eps_um() >= o.eps_uc() && o.eps_um() <= 1)) {
    return Bad("eps_um", o.eps_um(), "in [eps_uc, 1]");
  }
  if (!(o.f_ic() >= 0 && o.f_ic() <= 1)) return Bad("f_ic", o.f_ic(), "in [0, 1]");
  if (!(o.f_im() >= 0 && o.f_ic() + o.f_im() <= 1)) return Bad("f_im", o.f_im(), "in [0, 1 - f_ic]");
  if (!(o.eps_ic() > 0 && o.eps_ic() <= 1)) return Bad("eps_ic", o.eps_ic(), "in (0, 1]");
  if (!(o.eps_im() >= o.eps_ic() && o.eps_im() <= 1)) {
    return Bad("eps_im", o.eps_im(), "in [eps_ic, 1]");
  }
  return absl::OkStatus();
}

// The variant as the event=new_run line names it: the flag value of before the options
// (VARIANT_HDPMF_R: "hdpmf-r").
std::string VariantName(v1::HdpmfOptions::Variant variant) {
  absl::string_view name = v1::HdpmfOptions::Variant_Name(variant);
  absl::ConsumePrefix(&name, "VARIANT_");
  return absl::StrReplaceAll(absl::AsciiStrToLower(name), {{"_", "-"}});
}

absl::StatusOr<v1::HdpmfConfig> ConfigFromOptions(const RunSettings& run,
                                                  const v1::HdpmfOptions& o) {
  if (absl::Status s = RequirePureEpsilon(run, kName); !s.ok()) return s;
  if (!run.secure_aggregation) {
    return absl::InvalidArgumentError(
        "hdpmf: --secure_aggregation=false; its noise is shared among the clients of a secure sum");
  }
  if (absl::Status s = CheckOptions(o); !s.ok()) return s;
  v1::HdpmfConfig c;
  c.set_num_users(run.num_users);
  c.set_num_items(run.num_items);
  c.set_rank(o.rank());
  c.set_rounds(run.rounds);
  c.set_epsilon(run.epsilon);
  c.set_mode(o.mode());
  switch (o.variant()) {
    case v1::HdpmfOptions::VARIANT_DPMF:
      c.set_variant(v1::HDPMF_VARIANT_DPMF);
      break;
    case v1::HdpmfOptions::VARIANT_MF:
      c.set_variant(v1::HDPMF_VARIANT_MF);
      break;
    case v1::HdpmfOptions::VARIANT_PDPMF:
      c.set_variant(v1::HDPMF_VARIANT_PDPMF);
      break;
    case v1::HdpmfOptions::VARIANT_HDPMF_R:
      c.set_variant(v1::HDPMF_VARIANT_HDPMF);
      c.set_skip_rescaling(true);
      break;
    default:
      c.set_variant(v1::HDPMF_VARIANT_HDPMF);
      break;
  }
  c.set_learning_rate(o.learning_rate());
  c.set_lambda(o.lambda());
  c.set_rating_min(run.rating_scale.min);  // Delta = rating_max - rating_min
  c.set_rating_max(run.rating_scale.max);
  c.set_clip(o.clip());
  c.set_score_lambda(o.score_lambda());
  c.set_seed(run.seed);
  c.set_init_scale(o.init_scale());
  c.set_cohort_size(SampledCohort(run));
  c.set_min_contributors(run.min_clients > 0 ? run.min_clients : c.cohort_size());
  v1::HdpmfPrivacySpec& s = *c.mutable_spec();
  s.set_user_f_con(o.f_uc());
  s.set_user_f_mod(o.f_um());
  s.set_user_w_con(o.eps_uc());
  s.set_user_w_mod(o.eps_um());
  s.set_item_f_con(o.f_ic());
  s.set_item_f_mod(o.f_im());
  s.set_item_w_con(o.eps_ic());
  s.set_item_w_mod(o.eps_im());
  s.set_seed(o.spec_seed() != 0 ? o.spec_seed() : run.seed);
  c.set_skip_user_projection(o.skip_user_projection());
  c.set_skip_prediction_clamp(o.skip_prediction_clamp());
  c.set_pdpmf_mean_weight(o.pdpmf_mean_weight());
  c.set_score_with_trained_factor(o.score_with_trained_factor());
  c.set_init_center(o.init_center() >= 0 ? o.init_center() : DefaultInitCenter(c));
  c.set_simulation_summed_noise(run.simulation_summed_noise && c.variant() != v1::HDPMF_VARIANT_MF);
  if (absl::Status st = ValidateConfig(c); !st.ok()) return st;
  return c;
}

absl::StatusOr<NewRun> StartRun(const RunSettings& run, const v1::HdpmfOptions& options) {
  absl::StatusOr<v1::HdpmfConfig> c = ConfigFromOptions(run, options);
  if (!c.ok()) return c.status();
  absl::StatusOr<std::unique_ptr<HdpmfUpdater>> updater = HdpmfUpdater::Create(*c);
  if (!updater.ok()) return updater.status();
  std::vector<std::pair<std::string, std::string>> fields = {
      {"mode", c->mode() == v1::HDPMF_MODE_PAPER ? "paper" : "sound"},
      {"variant", VariantName(options.variant())},
      {"epsilon", EventValue(c->epsilon())},
      {"epsilon_per_round", EventValue(RoundEpsilon(*c))},
      {"noise_scale", EventValue(NoiseScale(*c))},
      {"noise_draw", c->simulation_summed_noise() ? "summed" : "per_user"},
      {"rounds", absl::StrCat(c->rounds())},
      {"cohort", absl::StrCat(c->cohort_size())},
      {"n_min", absl::StrCat(c->min_contributors())},
      {"spec_seed", absl::StrCat(c->spec().seed())}};
  if (c->variant() == v1::HDPMF_VARIANT_PDPMF) {
    fields.emplace_back("pdpmf_threshold", EventValue(PdpmfThreshold(*c)));
  }
  return NewRun{*std::move(updater), std::move(fields), c->simulation_summed_noise()};
}

const NewRunRegistrar kRun(kName, DefaultOptions(), StartRun);

}  // namespace
}  // namespace fedmf::algorithms::hdpmf
