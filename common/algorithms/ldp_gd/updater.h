// The server side of ldp-gd / ldp-gd-dr (ldp_gd.h): plans k rounds of one-coordinate reports,
// refuses any clear upload that is not exactly one report, and steps V with the mean report,
// recovered to m x d (Phi^+ in the paper's mode, Phi_t^T in the unbiased one):
//   V <- V - (gamma_t / f_k) (grad* + 2 lambda_v V).
#ifndef FEDMF_COMMON_ALGORITHMS_LDP_GD_UPDATER_H_
#define FEDMF_COMMON_ALGORITHMS_LDP_GD_UPDATER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/algorithms/algorithm.h"
#include "common/dp/gaussian_projection.h"
#include "fedmf/v1/ldp_gd.pb.h"

namespace fedmf::algorithms::ldp_gd {

class LdpGdUpdater final : public Updater {
 public:
  // Round 0 with V_0; InvalidArgument for a bad config.
  static absl::StatusOr<std::unique_ptr<LdpGdUpdater>> Create(const v1::LdpGdConfig& config);
  // From SerializeState() bytes (a fedmf.v1.LdpGdState), validated.
  static absl::StatusOr<std::unique_ptr<LdpGdUpdater>> Restore(absl::string_view state);

  int64_t round() const override { return state_.round(); }
  // After the k-th round too: it carries the final V (evaluation, recommendations).
  absl::StatusOr<v1::RoundPlan> Plan() const override;
  // FailedPrecondition after k rounds; InvalidArgument for a sum that cannot be k reports' (the
  // state is unchanged then).
  absl::Status ApplySum(absl::Span<const uint64_t> sum,
                        absl::Span<const uint32_t> contributors) override;
  absl::Status CheckUpload(const ContributionVector& vector) const override;
  absl::StatusOr<std::optional<dp::LedgerEntry>> RoundPrivacy(
      int64_t participants, const std::vector<double>& orders) const override;
  // Pure epsilon per user: k rounds of eps/k spend it exactly, a (k+1)-th does not fit.
  std::optional<dp::PrivacyBudget> budget() const override;
  absl::StatusOr<std::string> SerializeState() const override;

  const v1::LdpGdConfig& config() const { return state_.config(); }
  const Eigen::MatrixXd& item_factors() const { return item_factors_; }

 private:
  LdpGdUpdater(v1::LdpGdState state, Eigen::MatrixXd item_factors)
      : state_(std::move(state)), item_factors_(std::move(item_factors)) {}

  v1::LdpGdState state_;  // item_factors is kept in item_factors_ and written on serialization
  Eigen::MatrixXd item_factors_;
  // The paper's mode: Phi^+ of the run's one Phi, factorized at the first round applied.
  std::optional<dp::ProjectionRecovery> recovery_;
};

}  // namespace fedmf::algorithms::ldp_gd

#endif  // FEDMF_COMMON_ALGORITHMS_LDP_GD_UPDATER_H_
