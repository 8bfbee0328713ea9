// lfl-sgdmf's coordinator side (lfl_sgdmf.h): plans phase 0 for the round's cohort and, in the
// two-phase modes, phase 1 for phase 0's contributors; decodes S_1, keeps it until S_2 arrives,
// then steps V <- Pi(V - eta / n_1 (S_1 + lambda S_2)); charges each phase what it releases.
// A failed phase 1 abandons the round: S_1 was charged and is dropped, the round is retried.
#ifndef FEDMF_COMMON_ALGORITHMS_LFL_SGDMF_UPDATER_H_
#define FEDMF_COMMON_ALGORITHMS_LFL_SGDMF_UPDATER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/algorithms/algorithm.h"
#include "fedmf/v1/lfl_sgdmf.pb.h"

namespace fedmf::algorithms::lfl_sgdmf {

class LflSgdmfUpdater final : public Updater {
 public:
  // Round 0 with V_0. A noisy config gets its noise_std calibrated here (kept when already set,
  // e.g. by a test); InvalidArgument for a bad config.
  static absl::StatusOr<std::unique_ptr<LflSgdmfUpdater>> Create(v1::LflSgdmfConfig config);
  // From SerializeState() bytes (a fedmf.v1.LflSgdmfState), validated.
  static absl::StatusOr<std::unique_ptr<LflSgdmfUpdater>> Restore(absl::string_view state);

  int64_t round() const override { return state_.round(); }
  absl::StatusOr<v1::RoundPlan> Plan() const override;
  std::vector<uint32_t> PhaseParticipants() const override;
  absl::Status ApplySum(absl::Span<const uint64_t> sum,
                        absl::Span<const uint32_t> contributors) override;
  void AbandonRound() override;
  absl::StatusOr<std::optional<dp::LedgerEntry>> RoundPrivacy(
      int64_t participants, const std::vector<double>& orders) const override;
  // Before phase 0: RoundReleaseBound, the whole round (both phases) at its worst.
  absl::StatusOr<std::optional<dp::LedgerEntry>> RemainingRoundPrivacyBound(
      int64_t participants, const std::vector<double>& orders) const override;
  // The budget, except in the paper's two-phase mode, whose noise is set by Theorem 5 and whose
  // true cost the ledger reports without stopping the run.
  std::optional<dp::PrivacyBudget> budget() const override;
  absl::StatusOr<std::string> SerializeState() const override;

  const v1::LflSgdmfConfig& config() const { return state_.config(); }

 private:
  explicit LflSgdmfUpdater(v1::LflSgdmfState state) : state_(std::move(state)) {}

  absl::Status StepItems(const Eigen::VectorXd& gradient_sum, int64_t contributors);

  v1::LflSgdmfState state_;
};

}  // namespace fedmf::algorithms::lfl_sgdmf

#endif  // FEDMF_COMMON_ALGORITHMS_LFL_SGDMF_UPDATER_H_
