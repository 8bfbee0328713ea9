// PriviRec-k's coordinator side (privirec_k.h): plans the degree sum and the L power sums for the
// whole population (fixed_population), decodes each, orthonormalizes the iterate (QR), finishes
// the basis after the last sum, and keeps it as the model every later plan carries.
#ifndef FEDMF_COMMON_ALGORITHMS_PRIVIREC_K_UPDATER_H_
#define FEDMF_COMMON_ALGORITHMS_PRIVIREC_K_UPDATER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/algorithms/algorithm.h"
#include "fedmf/v1/privirec_k.pb.h"

namespace fedmf::algorithms::privirec_k {

class PriviRecKUpdater final : public Updater {
 public:
  // Round 0, phase 0, with the DP option calibrated; InvalidArgument for a bad config.
  static absl::StatusOr<std::unique_ptr<PriviRecKUpdater>> Create(v1::PriviRecKConfig config);
  // From SerializeState() bytes (a fedmf.v1.PriviRecKModel), validated.
  static absl::StatusOr<std::unique_ptr<PriviRecKUpdater>> Restore(absl::string_view state);

  int64_t round() const override { return model_.round(); }
  absl::StatusOr<v1::RoundPlan> Plan() const override;
  // Phase 0: the degrees (each <= n); phase l: Y_l (each coordinate in [-n, n]); with the DP
  // option the noisy sums, decoded (noise.h). InvalidArgument
  // for a sum of the wrong length or not of the whole population, OutOfRange for a coordinate
  // out of range (the state is unchanged then); FailedPrecondition after the last sum.
  absl::Status ApplySum(absl::Span<const uint64_t> sum,
                        absl::Span<const uint32_t> contributors) override;
  // With the DP option, the entry of the phase being summed (noise.h); else none
  // (docs/privacy-accounting.md: what the sums reveal).
  absl::StatusOr<std::optional<dp::LedgerEntry>> RoundPrivacy(
      int64_t participants, const std::vector<double>& orders) const override;
  bool fixed_population() const override { return true; }
  std::optional<dp::PrivacyBudget> budget() const override;
  absl::StatusOr<std::string> SerializeState() const override { return model_.SerializeAsString(); }

  const v1::PriviRecKModel& model() const { return model_; }

 private:
  explicit PriviRecKUpdater(v1::PriviRecKModel model) : model_(std::move(model)) {}

  v1::PriviRecKModel model_;
};

}  // namespace fedmf::algorithms::privirec_k

#endif  // FEDMF_COMMON_ALGORITHMS_PRIVIREC_K_UPDATER_H_
