// VFL-SGDMF's coordinator side: broadcasts U, decodes the parties' sum of (m_k / m) U^(k) into
// the next U (the paper's weighted average, step s2), and after the final round keeps the test
// MSE the parties measured. Every round needs all s parties (min = max contributors = s); a round
// that lost one is retried with the same U (party_state.h: the retry uploads the same vector).
#ifndef FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_UPDATER_H_
#define FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_UPDATER_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/algorithms/algorithm.h"
#include "fedmf/v1/vfl_sgdmf.pb.h"

namespace fedmf::algorithms::vfl_sgdmf {

class VflSgdmfUpdater final : public Updater {
 public:
  // Round 0 with the public initial U; InvalidArgument for a bad config.
  static absl::StatusOr<std::unique_ptr<VflSgdmfUpdater>> Create(const v1::VflSgdmfConfig& config);
  // From SerializeState() bytes (a fedmf.v1.VflSgdmfState), validated.
  static absl::StatusOr<std::unique_ptr<VflSgdmfUpdater>> Restore(absl::string_view state);

  int64_t round() const override { return state_.round(); }
  // Also after the run: round T + 1's plan carries the final U (clients keep it as the model).
  absl::StatusOr<v1::RoundPlan> Plan() const override;
  // OutOfRange (state unchanged) for a sum that may have wrapped; InvalidArgument for a sum of
  // another length or of other than s contributors.
  absl::Status ApplySum(absl::Span<const uint64_t> sum,
                        absl::Span<const uint32_t> contributors) override;
  absl::StatusOr<std::optional<dp::LedgerEntry>> RoundPrivacy(
      int64_t participants, const std::vector<double>& orders) const override;
  std::optional<dp::PrivacyBudget> budget() const override;
  absl::StatusOr<std::string> SerializeState() const override;
  // After the final round: test_mse, test_rmse and test_ratings (the parties' summed test error)
  // and train_mse.
  std::vector<std::pair<std::string, std::string>> Outcome() const override;

  const v1::VflSgdmfConfig& config() const { return state_.config(); }
  Eigen::MatrixXd Users() const;
  // The parties' test MSE after the final round; nullopt before it or without test ratings.
  std::optional<double> TestMse() const;
  // The parties' MSE on their training ratings after the final round (the rate-tuning criterion).
  std::optional<double> TrainMse() const;

 private:
  VflSgdmfUpdater(v1::VflSgdmfState state, Eigen::MatrixXd users)
      : state_(std::move(state)), users_(std::move(users)) {}

  v1::VflSgdmfState state_;
  Eigen::MatrixXd users_;  // state_.users() decoded
};

}  // namespace fedmf::algorithms::vfl_sgdmf

#endif  // FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_UPDATER_H_
