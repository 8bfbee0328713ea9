// RdpAccountant: the privacy spent by a sequence of mechanisms, as the order-by-order sum of their
// RDP curves (adaptive composition, Mironov 2017 Prop. 1), with reports and budget checks.
#ifndef FEDMF_COMMON_DP_RDP_ACCOUNTANT_H_
#define FEDMF_COMMON_DP_RDP_ACCOUNTANT_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "common/dp/dp_conversion.h"
#include "common/dp/rdp_curve.h"

namespace fedmf::dp {

class RdpAccountant {
 public:
  static absl::StatusOr<RdpAccountant> Create(std::vector<double> orders = DefaultOrders());

  // Records `count` >= 0 runs of a mechanism whose per-run guarantee is `step` (same grid).
  absl::Status Compose(const RdpCurve& step, int64_t count = 1);

  const RdpCurve& spent() const { return spent_; }
  absl::StatusOr<PrivacyReport> Report(double delta) const { return dp::Report(spent_, delta); }

  // Whether `count` more runs of `step` keep the total within `budget`.
  absl::StatusOr<bool> CanAfford(const RdpCurve& step, const PrivacyBudget& budget,
                                 int64_t count = 1) const;

  // The largest k in [0, max_count] such that k more runs of `step` stay within `budget`
  // (0 when even the current total is over budget).
  absl::StatusOr<int64_t> AffordableCount(const RdpCurve& step, const PrivacyBudget& budget,
                                          int64_t max_count) const;

 private:
  explicit RdpAccountant(RdpCurve spent) : spent_(std::move(spent)) {}

  RdpCurve spent_;
};

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_RDP_ACCOUNTANT_H_
