// PrivacyAccountant: the privacy spent by a sequence of releases, as the composition of their
// PrivacyCosts (RDP curves added order by order, Mironov 2017 Prop. 1, and pure epsilons summed),
// with reports and budget checks: whether more releases still fit, and how many.
#ifndef FEDMF_COMMON_DP_PRIVACY_ACCOUNTANT_H_
#define FEDMF_COMMON_DP_PRIVACY_ACCOUNTANT_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/dp/dp_conversion.h"
#include "common/dp/privacy_cost.h"
#include "common/dp/rdp_curve.h"

namespace fedmf::dp {

class PrivacyAccountant {
 public:
  static absl::StatusOr<PrivacyAccountant> Create(std::vector<double> orders = DefaultOrders());

  // Records `count` >= 0 runs of a release whose cost is `step` (same grid).
  absl::Status Compose(const PrivacyCost& step, int64_t count = 1);

  const PrivacyCost& spent() const { return spent_; }
  absl::StatusOr<PrivacyReport> Report(double delta) const { return dp::Report(spent_, delta); }

  // Whether `count` more runs of `step` keep the total within `budget`.
  absl::StatusOr<bool> CanAfford(const PrivacyCost& step, const PrivacyBudget& budget,
                                 int64_t count = 1) const;

  // The largest k in [0, max_count] such that k more runs of `step` stay within `budget`
  // (0 when even the current total is over budget).
  absl::StatusOr<int64_t> AffordableCount(const PrivacyCost& step, const PrivacyBudget& budget,
                                          int64_t max_count) const;

 private:
  explicit PrivacyAccountant(PrivacyCost spent) : spent_(std::move(spent)) {}

  PrivacyCost spent_;
};

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_PRIVACY_ACCOUNTANT_H_
