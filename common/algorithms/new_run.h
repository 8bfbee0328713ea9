// Starting a fresh run of a registered algorithm (registry.h). The runtime reads the run-level
// settings every algorithm shares from its own flags (server/coordinator_setup.cc), resolves the
// algorithm's options (its typed message fedmf.v1.<Name>Options: the registered defaults, then
// --config and --set, options.h) and hands both to the algorithm's factory, which returns the
// round-0 updater and the fields of the run's event=new_run line. Each algorithm registers its
// default options and factory with a static NewRunRegistrar in <algorithm>/new_run.cc, linked
// only into the binaries that start runs (fedmf-coordinator, fedmf-sim). Registering a factory
// twice ends the process at startup with a message.
#ifndef FEDMF_COMMON_ALGORITHMS_NEW_RUN_H_
#define FEDMF_COMMON_ALGORITHMS_NEW_RUN_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/algorithms/algorithm.h"
#include "common/algorithms/noise_outlook.h"
#include "common/algorithms/scorer.h"
#include "common/mf/factor_model.h"
#include "google/protobuf/message.h"

namespace fedmf::algorithms {

// The delta of --epsilon when --delta is not given, for every algorithm whose budget is
// (epsilon, delta)-DP (dpmf-rp, dp-popularity): --epsilon=E alone means whole-run, user-level
// (E, 1e-5)-DP. 1e-5 is the delta of the results (docs/results/privacy-utility.md) and of the
// literature fedmf compares with (Kairouz et al. 2021), and below 1 / n, the usual ceiling, for
// populations up to 100000 users (ML-100K: 943, ML-1M: 6040); for more, pass a smaller --delta.
inline constexpr double kDefaultDelta = 1e-5;
// The fraction of the users sampled per round when --participation is not given and the algorithm
// has no default of its own (dpmf-rp's is its preset's).
inline constexpr double kDefaultParticipation = 0.1;

// The run-level settings shared by every algorithm; the algorithm validates them. The optional
// ones are unset when their flag was not given: the algorithm picks its default.
struct RunSettings {
  int64_t num_users = 0;  // n: participant ids are 1..n
  int32_t num_items = 0;  // m
  int64_t rounds = 0;     // T: training rounds
  std::optional<double> participation =
      std::nullopt;                // beta: fraction of the users sampled per round
  int64_t min_clients = 0;         // n_min: fewest inputs in a decoded sum; 0: the whole cohort
  bool secure_aggregation = true;  // false: clear uploads, each private on its own (n_min = 1)
  double epsilon = 0;              // privacy budget of the whole run ...
  // ... as (epsilon, delta)-DP if delta > 0, as RDP at order 2 if 0 (the DPMF-RP paper's
  // convention), unset: kDefaultDelta, or the algorithm's own (pure-epsilon algorithms: 0).
  std::optional<double> delta = std::nullopt;
  uint64_t seed = 0;  // model initialization, public seeds, cohort sampling
  RatingScale rating_scale{.min = 1, .max = 5};  // the ratings' range (scorer.h)
  // fedmf-sim --plain_sum --summed_noise only: the users leave the noise of a secure sum out and
  // the updater draws it for the whole sum at once (an algorithm that can do so exactly in
  // distribution says so in NewRun::summed_noise; the runtime refuses the others).
  bool simulation_summed_noise = false;
  // The item factors V (num_items x rank) to start from instead of the public random ones: a
  // published model's (RunSpec.start_from_version, start_model.h). Only for an algorithm
  // registered with NewRunDefaults::starts_from_item_factors (StartNewRun refuses the others);
  // it takes them through InitialItemFactors. Unset: a fresh model.
  std::optional<mf::FactorMatrix> start_item_factors = std::nullopt;
};

// round(participation * num_users), at least 1: the cohort a run samples each round (participation
// unset: kDefaultParticipation).
int64_t SampledCohort(const RunSettings& run);
// --min_clients, or 1 when it is 0: a local-DP report is private on its own.
int64_t LocalDpMinContributors(const RunSettings& run);
// InvalidArgument naming `algorithm` unless --delta is unset or 0: its budget is pure epsilon.
absl::Status RequirePureEpsilon(const RunSettings& run, absl::string_view algorithm);

struct NewRun {
  std::unique_ptr<Updater> updater;  // round 0
  // key=value fields of the event=new_run line, in order, values formatted as EventLine does.
  std::vector<std::pair<std::string, std::string>> log_fields;
  bool summed_noise = false;  // the run honours RunSettings::simulation_summed_noise
};

// `options` is of the type of the algorithm's registered default options (the registrar checks).
using NewRunFactory = std::function<absl::StatusOr<NewRun>(
    const RunSettings& settings, const google::protobuf::Message& options)>;

// --rounds when it is not given and the algorithm registered no default of its own.
inline constexpr int64_t kDefaultRounds = 100;

// What a fresh run of an algorithm takes when the command line does not say.
struct NewRunDefaults {
  int64_t rounds = kDefaultRounds;  // --rounds unset, >= 1
  // The measured runs of the algorithm's private model from which a fresh run's noise outlook
  // predicts whether it beats DP popularity (noise_outlook.h), in increasing noise_to_signal;
  // empty: no prediction.
  std::vector<OutlookPoint> outlook_points;
  // The factory honours RunSettings::start_item_factors (its model is item factors V, m x rank).
  bool starts_from_item_factors = false;
};

// AlreadyExists when `algorithm` has a factory; InvalidArgument for an empty name or factory, or
// invalid `defaults` (rounds < 1, outlook points out of order or out of range).
// `default_options` is every option's value when neither --config nor --set names it.
absl::Status RegisterNewRunFactory(absl::string_view algorithm,
                                   const google::protobuf::Message& default_options,
                                   NewRunFactory factory, NewRunDefaults defaults = {});

// Registers at static initialization; a refused registration prints the reason and aborts:
//   const NewRunRegistrar kNewRun(kAlgorithmName, DefaultOptions(), StartRun, {...});
// with StartRun(const RunSettings&, const v1::<Name>Options&).
class NewRunRegistrar {
 public:
  template <typename Options>
  NewRunRegistrar(absl::string_view algorithm, const Options& default_options,
                  absl::StatusOr<NewRun> (*start)(const RunSettings&, const Options&),
                  NewRunDefaults defaults = {})
      : NewRunRegistrar(algorithm, default_options, Erase(start), std::move(defaults)) {}

 private:
  NewRunRegistrar(absl::string_view algorithm, const google::protobuf::Message& default_options,
                  NewRunFactory factory, NewRunDefaults defaults);

  template <typename Options>
  static NewRunFactory Erase(absl::StatusOr<NewRun> (*start)(const RunSettings&, const Options&)) {
    return [start](const RunSettings& settings,
                   const google::protobuf::Message& options) -> absl::StatusOr<NewRun> {
      const Options* typed = google::protobuf::DynamicCastToGenerated<Options>(&options);
      if (typed == nullptr) {
        return absl::InternalError(absl::StrCat("options of type ", options.GetTypeName(),
                                                " given where ", Options::descriptor()->full_name(),
                                                " is expected"));
      }
      return start(settings, *typed);
    };
  }
};

// OK when `algorithm` registered NewRunDefaults::starts_from_item_factors, else InvalidArgument
// naming the algorithms that did.
absl::Status CheckStartsFromItemFactors(absl::string_view algorithm);

// The defaults `algorithm` registered with its factory; NewRunDefaults{} when it has none.
NewRunDefaults RegisteredNewRunDefaults(absl::string_view algorithm);

// The default options `algorithm` registered, which live as long as the process;
// FailedPrecondition naming the algorithms that can start runs when this binary has no factory
// for it.
absl::StatusOr<const google::protobuf::Message*> RegisteredDefaultOptions(
    absl::string_view algorithm);

// Every algorithm with a new-run factory in this binary, ordered by name.
std::vector<std::string> NewRunAlgorithms();

// The factory of `algorithm` run on `settings` and `options` (resolved by options.h);
// FailedPrecondition when this binary has no factory for it (only fedmf-coordinator and
// fedmf-sim link them); CheckStartsFromItemFactors' error when `settings` has start item factors.
absl::StatusOr<NewRun> StartNewRun(absl::string_view algorithm, const RunSettings& settings,
                                   const google::protobuf::Message& options);

}  // namespace fedmf::algorithms

#endif  // FEDMF_COMMON_ALGORITHMS_NEW_RUN_H_
