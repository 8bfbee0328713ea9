// The contract probe's flags and the factory of a fresh probe run (new_run.h). Linked only into
// the binaries that start runs (fedmf-coordinator, fedmf-sim).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "google/protobuf/empty.pb.h"
#include "absl/strings/str_cat.h"
#include "common/algorithms/new_run.h"
#include "common/algorithms/probe/probe.h"
#include "common/algorithms/probe/updater.h"
#include "common/util/event_log.h"

ABSL_FLAG(double, probe_report_epsilon, 0.5,
          "probe: pure epsilon of one user's report per round (k-ary randomized response)");
ABSL_FLAG(bool, probe_fixed_population, false,
          "probe: every registered participant in every phase, any loss ends the run");

namespace fedmf::algorithms::probe {
namespace {

// The run's --epsilon is the probe's pure-epsilon budget per user (basic composition over
// rounds); --delta must be 0. --min_clients 0 means 1: a local-DP report is private alone.
absl::StatusOr<NewRun> StartProbeRun(const RunSettings& run, const google::protobuf::Empty& /*options*/) {
  if (absl::Status s = RequirePureEpsilon(run, kAlgorithmName); !s.ok()) return s;
  v1::ProbeConfig c;
  c.set_num_items(run.num_items);
  c.set_num_users(run.num_users);
  c.set_rounds(run.rounds);
  c.set_cohort_size(SampledCohort(run));
  c.set_min_contributors(LocalDpMinContributors(run));
  c.set_report_epsilon(absl::GetFlag(FLAGS_probe_report_epsilon));
  c.set_budget_epsilon(run.epsilon);
  c.set_fixed_population(absl::GetFlag(FLAGS_probe_fixed_population));
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

const NewRunRegistrar kNewRunRegistrar(kAlgorithmName, google::protobuf::Empty(), StartProbeRun);

}  // namespace
}  // namespace fedmf::algorithms::probe
