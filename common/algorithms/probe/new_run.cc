// The contract probe's fresh run (new_run.h): its options (fedmf.v1.ProbeOptions,
// configs/probe/default.textproto) and the runtime's RunSettings make a ProbeConfig, whose updater
// starts the run. Linked only into the binaries that start runs (fedmf-coordinator, fedmf-sim).
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/new_run.h"
#include "common/algorithms/probe/probe.h"
#include "common/algorithms/probe/updater.h"
#include "common/util/event_log.h"
#include "fedmf/v1/probe.pb.h"

namespace fedmf::algorithms::probe {
namespace {

v1::ProbeOptions DefaultOptions() {
  v1::ProbeOptions o;
  o.set_report_epsilon(0.5);
  o.set_fixed_population(false);
  return o;
}

// The run's --epsilon is the probe's pure-epsilon budget per user (basic composition over
// rounds); --delta must be 0. --min_clients 0 means 1: a local-DP report is private alone.
absl::StatusOr<NewRun> StartProbeRun(const RunSettings& run, const v1::ProbeOptions& options) {
  if (absl::Status s = RequirePureEpsilon(run, kAlgorithmName); !s.ok()) return s;
  if (!(options.report_epsilon() > 0) || !std::isfinite(options.report_epsilon())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "probe: report_epsilon=", options.report_epsilon(), " must be > 0"));
  }
  v1::ProbeConfig c;
  c.set_num_items(run.num_items);
  c.set_num_users(run.num_users);
  c.set_rounds(run.rounds);
  c.set_cohort_size(SampledCohort(run));
  c.set_min_contributors(LocalDpMinContributors(run));
  c.set_report_epsilon(options.report_epsilon());
  c.set_budget_epsilon(run.epsilon);
  c.set_fixed_population(options.fixed_population());
  absl::StatusOr<std::unique_ptr<ProbeUpdater>> updater = ProbeUpdater::Create(c);
  if (!updater.ok()) return updater.status();
  std::vector<std::pair<std::string, std::string>> fields = {
      {"report_epsilon", EventValue(c.report_epsilon())},
      {"budget_epsilon", EventValue(c.budget_epsilon())},
      {"rounds", absl::StrCat(c.rounds())},
      {"cohort", c.fixed_population() ? std::string("population") : absl::StrCat(c.cohort_size())},
      {"n_min", absl::StrCat(c.min_contributors())}};
  return NewRun{*std::move(updater), std::move(fields)};
}

const NewRunRegistrar kNewRunRegistrar(kAlgorithmName, DefaultOptions(), StartProbeRun);

}  // namespace
}  // namespace fedmf::algorithms::probe
