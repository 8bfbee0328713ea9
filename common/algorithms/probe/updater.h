// The probe's coordinator side (probe.h): plans the report phase for a cohort and the counter
// phase for its contributors, counts the reports it received from each participant, keeps phase
// 0's counts pending until phase 1 confirms that no contributor lost its state, then adds them to
// the popularity estimate.
#ifndef FEDMF_COMMON_ALGORITHMS_PROBE_UPDATER_H_
#define FEDMF_COMMON_ALGORITHMS_PROBE_UPDATER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/algorithms/algorithm.h"
#include "fedmf/v1/probe.pb.h"

namespace fedmf::algorithms::probe {

class ProbeUpdater final : public Updater {
 public:
  // Round 0, phase 0, nothing counted; InvalidArgument for a bad config.
  static absl::StatusOr<std::unique_ptr<ProbeUpdater>> Create(const v1::ProbeConfig& config);
  // From SerializeState() bytes (a fedmf.v1.ProbeState), validated.
  static absl::StatusOr<std::unique_ptr<ProbeUpdater>> Restore(absl::string_view state);

  int64_t round() const override { return state_.round(); }
  absl::StatusOr<v1::RoundPlan> Plan() const override;
  std::vector<uint32_t> PhaseParticipants() const override;
  // Phase 1 refuses (FailedPrecondition, state unchanged) a contributor's counter below the
  // phase-0 contributions received from it: it forgot contributions it made, i.e. lost its
  // state; InvalidArgument for a counter at a non-contributor's coordinate.
  absl::Status ApplySum(absl::Span<const uint64_t> sum,
                        absl::Span<const uint32_t> contributors) override;
  void AbandonRound() override;
  absl::StatusOr<std::optional<dp::LedgerEntry>> RoundPrivacy(
      int64_t participants, const std::vector<double>& orders) const override;
  std::optional<dp::PrivacyBudget> budget() const override;
  bool fixed_population() const override { return state_.config().fixed_population(); }
  absl::StatusOr<std::string> SerializeState() const override;

  // The estimated number of users holding each item, from every applied round's reports.
  Eigen::VectorXd Popularity() const;

 private:
  explicit ProbeUpdater(v1::ProbeState state) : state_(std::move(state)) {}

  absl::Status ApplyReports(absl::Span<const uint64_t> sum,
                            absl::Span<const uint32_t> contributors);
  absl::Status ApplyCounters(absl::Span<const uint64_t> sum,
                             absl::Span<const uint32_t> contributors);

  v1::ProbeState state_;
};

}  // namespace fedmf::algorithms::probe

#endif  // FEDMF_COMMON_ALGORITHMS_PROBE_UPDATER_H_
