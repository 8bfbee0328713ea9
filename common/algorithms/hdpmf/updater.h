// The server side of HDPMF (hdpmf.h): plans T rounds whose secure sum is every contributor's item
// gradient plus noise shares (with summed noise: plus the noise it draws for the n contributors),
// and steps V <- V - eta_t (sum + 2 lambda V) (Algorithm 1, line 8).
// The ledger gets the round's worst-case release (each user's own cost lives on its device).
#ifndef FEDMF_COMMON_ALGORITHMS_HDPMF_UPDATER_H_
#define FEDMF_COMMON_ALGORITHMS_HDPMF_UPDATER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/algorithms/algorithm.h"
#include "fedmf/v1/hdpmf.pb.h"

namespace fedmf::algorithms::hdpmf {

class HdpmfUpdater final : public Updater {
 public:
  // Round 0 with V_0; InvalidArgument for a bad config.
  static absl::StatusOr<std::unique_ptr<HdpmfUpdater>> Create(const v1::HdpmfConfig& config);
  // From SerializeState() bytes (a fedmf.v1.HdpmfState), validated.
  static absl::StatusOr<std::unique_ptr<HdpmfUpdater>> Restore(absl::string_view state);

  int64_t round() const override { return state_.round(); }
  // After the T-th round too: it carries the final V (evaluation, recommendations).
  absl::StatusOr<v1::RoundPlan> Plan() const override;
  // FailedPrecondition after T rounds; InvalidArgument / OutOfRange for a sum that cannot be the
  // plan's (the state is unchanged then).
  absl::Status ApplySum(absl::Span<const uint64_t> sum,
                        absl::Span<const uint32_t> contributors) override;
  absl::StatusOr<std::optional<dp::LedgerEntry>> RoundPrivacy(
      int64_t participants, const std::vector<double>& orders) const override;
  // Pure epsilon for the worst-case record (unit rating in paper mode, user in sound mode); none
  // for MF.
  std::optional<dp::PrivacyBudget> budget() const override;
  absl::StatusOr<std::string> SerializeState() const override;

  const v1::HdpmfConfig& config() const { return state_.config(); }
  const Eigen::MatrixXd& item_factors() const { return item_factors_; }

 private:
  HdpmfUpdater(v1::HdpmfState state, Eigen::MatrixXd item_factors)
      : state_(std::move(state)), item_factors_(std::move(item_factors)) {}

  v1::HdpmfState state_;  // item_factors is kept in item_factors_ and written on serialization
  Eigen::MatrixXd item_factors_;
};

}  // namespace fedmf::algorithms::hdpmf

#endif  // FEDMF_COMMON_ALGORITHMS_HDPMF_UPDATER_H_
