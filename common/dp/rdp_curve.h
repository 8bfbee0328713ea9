// RdpCurve: a Renyi-DP guarantee epsilon(alpha) tabulated on a grid of orders alpha > 1, the unit
// the accountant composes (values add order by order) and converts. All curves that are composed
// must share one grid; DefaultOrders() is the grid used throughout fedmf.
#ifndef FEDMF_COMMON_DP_RDP_CURVE_H_
#define FEDMF_COMMON_DP_RDP_CURVE_H_

#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace fedmf::dp {

// Fractional orders from 1.05 to 7.5, every integer from 8 to 64, then up to 1024. Contains 2
// (the order the DPMF-RP paper reports) and is fine enough near 1 for large epsilons.
std::vector<double> DefaultOrders();

// OK iff orders is non-empty, finite, strictly increasing and every order is > 1.
absl::Status ValidateOrders(absl::Span<const double> orders);

// One RDP order: finite and > 1.
absl::Status ValidateOrder(double order);

class RdpCurve {
 public:
  // Values must be >= 0 (or +infinity: no guarantee at that order), one per order.
  static absl::StatusOr<RdpCurve> Create(std::vector<double> orders, std::vector<double> values);
  // The guarantee of doing nothing: 0 at every order.
  static absl::StatusOr<RdpCurve> Zero(std::vector<double> orders);
  // Evaluates `rdp_at_order` at every order.
  static absl::StatusOr<RdpCurve> FromFunction(
      std::vector<double> orders,
      const std::function<absl::StatusOr<double>(double)>& rdp_at_order);

  const std::vector<double>& orders() const { return orders_; }
  const std::vector<double>& values() const { return values_; }

  // The value at exactly `order` (which must be on the grid).
  absl::StatusOr<double> At(double order) const;

  // Composition: adds `times` >= 0 copies of `other`, which must have the same grid.
  absl::Status Compose(const RdpCurve& other, double times = 1.0);

  friend bool operator==(const RdpCurve&, const RdpCurve&) = default;

 private:
  RdpCurve(std::vector<double> orders, std::vector<double> values)
      : orders_(std::move(orders)), values_(std::move(values)) {}

  std::vector<double> orders_;
  std::vector<double> values_;
};

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_RDP_CURVE_H_
