// PriviRec's coordinator side (privirec.h): plans the degree sum and the Gram sum for the whole
// population (fixed_population), decodes them, and keeps them as the model every later plan
// carries (each client builds P~ and its filter from it).
#ifndef FEDMF_COMMON_ALGORITHMS_PRIVIREC_UPDATER_H_
#define FEDMF_COMMON_ALGORITHMS_PRIVIREC_UPDATER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/algorithms/algorithm.h"
#include "fedmf/v1/privirec.pb.h"

namespace fedmf::algorithms::privirec {

class PriviRecUpdater final : public Updater {
 public:
  // Round 0, phase 0; InvalidArgument for a bad config. With the DP option, calibrates its noise.
  static absl::StatusOr<std::unique_ptr<PriviRecUpdater>> Create(v1::PriviRecConfig config);
  // From SerializeState() bytes (a fedmf.v1.PriviRecModel), validated.
  static absl::StatusOr<std::unique_ptr<PriviRecUpdater>> Restore(absl::string_view state);

  int64_t round() const override { return model_.round(); }
  absl::StatusOr<v1::RoundPlan> Plan() const override;
  // Phase 0: the degrees (each <= n); phase 1: the Gram sum's non-zero entries (each <= n 2^f:
  // bits leave no wrap). InvalidArgument for a sum of the wrong length, not of the whole
  // population, or out of range; FailedPrecondition after both sums.
  absl::Status ApplySum(absl::Span<const uint64_t> sum,
                        absl::Span<const uint32_t> contributors) override;
  // The planned sum's ddg release with the DP option (noise.h), else nullopt.
  absl::StatusOr<std::optional<dp::LedgerEntry>> RoundPrivacy(
      int64_t participants, const std::vector<double>& orders) const override;
  bool fixed_population() const override { return true; }
  // (epsilon, delta) per user with the DP option, else none.
  std::optional<dp::PrivacyBudget> budget() const override;
  absl::StatusOr<std::string> SerializeState() const override { return model_.SerializeAsString(); }

  const v1::PriviRecModel& model() const { return model_; }

 private:
  explicit PriviRecUpdater(v1::PriviRecModel model) : model_(std::move(model)) {}

  v1::PriviRecModel model_;
};

}  // namespace fedmf::algorithms::privirec

#endif  // FEDMF_COMMON_ALGORITHMS_PRIVIREC_UPDATER_H_
