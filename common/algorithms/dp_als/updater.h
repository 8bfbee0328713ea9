// DP-ALS's coordinator side: keeps the item factors V and the round, plans each round's sum of
// every user's weighted statistics (the whole population: fixed_population), decodes it and
// solves V (item_update.h), T rounds in all; V_0 is uniform in [-init_scale, init_scale) from the
// run's public seed, its first column init_scale everywhere with init_constant_column. Its state is
// the fedmf.v1.DpAlsModel every plan carries.
#ifndef FEDMF_COMMON_ALGORITHMS_DP_ALS_UPDATER_H_
#define FEDMF_COMMON_ALGORITHMS_DP_ALS_UPDATER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/algorithms/algorithm.h"
#include "common/mf/factor_model.h"
#include "fedmf/v1/dp_als.pb.h"

namespace fedmf::algorithms::dp_als {

class DpAlsUpdater final : public Updater {
 public:
  // Round 0 from the public random V_0 of config.seed, or from `start_items` (a published model's
  // V, start_model.h; InvalidArgument unless num_items x rank and finite); InvalidArgument for a
  // bad config; calibrates the noise (privacy.h).
  static absl::StatusOr<std::unique_ptr<DpAlsUpdater>> Create(
      v1::DpAlsConfig config, std::optional<mf::FactorMatrix> start_items = std::nullopt);
  // From SerializeState() bytes, every field validated.
  static absl::StatusOr<std::unique_ptr<DpAlsUpdater>> Restore(absl::string_view state);

  int64_t round() const override { return model_.round(); }
  absl::StatusOr<v1::RoundPlan> Plan() const override;
  // FailedPrecondition after T rounds; the codec's errors for a malformed or wrapped sum (the
  // state is then unchanged).
  absl::Status ApplySum(absl::Span<const uint64_t> sum,
                        absl::Span<const uint32_t> contributors) override;
  absl::StatusOr<std::optional<dp::LedgerEntry>> RoundPrivacy(
      int64_t participants, const std::vector<double>& orders) const override;
  bool fixed_population() const override { return true; }
  std::optional<dp::PrivacyBudget> budget() const override;
  absl::StatusOr<std::string> SerializeState() const override { return model_.SerializeAsString(); }

  const v1::DpAlsModel& model() const { return model_; }

 private:
  explicit DpAlsUpdater(v1::DpAlsModel model) : model_(std::move(model)) {}

  v1::DpAlsModel model_;
};

}  // namespace fedmf::algorithms::dp_als

#endif  // FEDMF_COMMON_ALGORITHMS_DP_ALS_UPDATER_H_
