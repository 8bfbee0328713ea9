// HFL-SGDMF's coordinator side: broadcasts V, decodes the parties' sum of (n_k / n) V^(k) into the
// next V (the paper's weighted average; HFL-synSGD: the sum of their noisy gradients, one step of
// syn_step.h ApplySynStep), and after the final round keeps the test MSE the parties
// measured before and after their local fine-tuning. Every round needs all s parties (min = max
// contributors = s); a round that lost one is retried with the same V (lib/fmf_party/party_round.h:
// the retry uploads the same vector).
#ifndef FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_UPDATER_H_
#define FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_UPDATER_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/algorithms/algorithm.h"
#include "fedmf/v1/hfl_sgdmf.pb.h"

namespace fedmf::algorithms::hfl_sgdmf {

class HflSgdmfUpdater final : public Updater {
 public:
  // Round 0 with the public initial V; InvalidArgument for a bad config.
  static absl::StatusOr<std::unique_ptr<HflSgdmfUpdater>> Create(const v1::HflSgdmfConfig& config);
  // From SerializeState() bytes (a fedmf.v1.HflSgdmfState), validated.
  static absl::StatusOr<std::unique_ptr<HflSgdmfUpdater>> Restore(absl::string_view state);

  int64_t round() const override { return state_.round(); }
  // Also after the run: round T + 1's plan carries the final V.
  absl::StatusOr<v1::RoundPlan> Plan() const override;
  // OutOfRange (state unchanged) for a sum that may have wrapped; InvalidArgument for a sum of
  // another length or of other than s contributors.
  absl::Status ApplySum(absl::Span<const uint64_t> sum,
                        absl::Span<const uint32_t> contributors) override;
  absl::StatusOr<std::optional<dp::LedgerEntry>> RoundPrivacy(
      int64_t participants, const std::vector<double>& orders) const override;
  std::optional<dp::PrivacyBudget> budget() const override;
  absl::StatusOr<std::string> SerializeState() const override;
  // After the final round: test_mse (after fine-tuning), test_rmse, test_mse_before_finetune,
  // test_ratings and train_mse, from the parties' summed errors.
  std::vector<std::pair<std::string, std::string>> Outcome() const override;

  const v1::HflSgdmfConfig& config() const { return state_.config(); }
  Eigen::MatrixXd Items() const { return items_; }
  // The parties' test MSE after the final round, after (or before) fine-tuning; nullopt before it
  // or without test ratings.
  std::optional<double> TestMse(bool after_finetune = true) const;
  // The parties' MSE on their training ratings after fine-tuning (the rate-tuning criterion).
  std::optional<double> TrainMse() const;

 private:
  HflSgdmfUpdater(v1::HflSgdmfState state, Eigen::MatrixXd items)
      : state_(std::move(state)), items_(std::move(items)) {}

  v1::HflSgdmfState state_;
  Eigen::MatrixXd items_;  // state_.items() decoded
};

}  // namespace fedmf::algorithms::hfl_sgdmf

#endif  // FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_UPDATER_H_
