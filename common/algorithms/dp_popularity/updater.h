// dp-popularity's coordinator side (dp_popularity.h): plans the one counting round for a cohort,
// decodes the secure sum into every item's count, and keeps it as the model every later plan
// carries.
#ifndef FEDMF_COMMON_ALGORITHMS_DP_POPULARITY_UPDATER_H_
#define FEDMF_COMMON_ALGORITHMS_DP_POPULARITY_UPDATER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/algorithms/algorithm.h"
#include "fedmf/v1/dp_popularity.pb.h"

namespace fedmf::algorithms::dp_popularity {

class DpPopularityUpdater final : public Updater {
 public:
  // Round 0. A noisy config gets its noise_std calibrated here; InvalidArgument for a bad config.
  static absl::StatusOr<std::unique_ptr<DpPopularityUpdater>> Create(v1::DpPopularityConfig config);
  // From SerializeState() bytes (a fedmf.v1.DpPopularityState), validated.
  static absl::StatusOr<std::unique_ptr<DpPopularityUpdater>> Restore(absl::string_view state);

  int64_t round() const override { return state_.round(); }
  absl::StatusOr<v1::RoundPlan> Plan() const override;
  // Decodes the counts (OutOfRange for a sum that may have wrapped; state unchanged);
  // FailedPrecondition once the count is applied (one round only).
  absl::Status ApplySum(absl::Span<const uint64_t> sum,
                        absl::Span<const uint32_t> contributors) override;
  absl::StatusOr<std::optional<dp::LedgerEntry>> RoundPrivacy(
      int64_t participants, const std::vector<double>& orders) const override;
  std::optional<dp::PrivacyBudget> budget() const override;
  absl::StatusOr<std::string> SerializeState() const override;

  const v1::DpPopularityConfig& config() const { return state_.config(); }

 private:
  explicit DpPopularityUpdater(v1::DpPopularityState state) : state_(std::move(state)) {}

  v1::DpPopularityState state_;
};

}  // namespace fedmf::algorithms::dp_popularity

#endif  // FEDMF_COMMON_ALGORITHMS_DP_POPULARITY_UPDATER_H_
