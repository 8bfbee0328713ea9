#include "common/dp/rdp_curve.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"

namespace fedmf::dp {
namespace {

absl::Status ValidateValue(double order, double value) {
  if (std::isnan(value) || value < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("RDP value at order ", order, " must be >= 0 or +inf, got ", value));
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<double> DefaultOrders() {
  std::vector<double> orders = {1.05, 1.1,  1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0, 3.25,
                                3.5,  3.75, 4.0,  4.5, 5.0,  5.5, 6.0,  6.5, 7.0,  7.5};
  for (int order = 8; order <= 64; ++order) orders.push_back(order);
  for (double order : {72, 80, 96, 112, 128, 160, 192, 256, 384, 512, 1024})
    orders.push_back(order);
  return orders;
}

absl::Status ValidateOrder(double order) {
  if (!std::isfinite(order) || order <= 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("RDP order must be finite and > 1, got ", order));
  }
  return absl::OkStatus();
}

absl::Status ValidateOrders(absl::Span<const double> orders) {
  if (orders.empty()) return absl::InvalidArgumentError("the grid of RDP orders is empty");
  for (size_t i = 0; i < orders.size(); ++i) {
    if (!std::isfinite(orders[i]) || orders[i] <= 1.0) {
      return absl::InvalidArgumentError(
          absl::StrCat("RDP order #", i, " must be finite and > 1, got ", orders[i]));
    }
    if (i > 0 && orders[i] <= orders[i - 1]) {
      return absl::InvalidArgumentError(absl::StrCat("RDP orders must be strictly increasing: #", i,
                                                     " = ", orders[i], " follows ", orders[i - 1]));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<RdpCurve> RdpCurve::Create(std::vector<double> orders, std::vector<double> values) {
  if (absl::Status s = ValidateOrders(orders); !s.ok()) return s;
  if (values.size() != orders.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("RDP curve has ", values.size(), " values for ", orders.size(), " orders"));
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (absl::Status s = ValidateValue(orders[i], values[i]); !s.ok()) return s;
  }
  return RdpCurve(std::move(orders), std::move(values));
}

absl::StatusOr<RdpCurve> RdpCurve::Zero(std::vector<double> orders) {
  std::vector<double> values(orders.size(), 0.0);
  return Create(std::move(orders), std::move(values));
}

absl::StatusOr<RdpCurve> RdpCurve::FromFunction(
    std::vector<double> orders, const std::function<absl::StatusOr<double>(double)>& rdp_at_order) {
  if (absl::Status s = ValidateOrders(orders); !s.ok()) return s;
  std::vector<double> values;
  values.reserve(orders.size());
  for (double order : orders) {
    absl::StatusOr<double> value = rdp_at_order(order);
    if (!value.ok()) return value.status();
    values.push_back(*value);
  }
  return Create(std::move(orders), std::move(values));
}

absl::StatusOr<double> RdpCurve::At(double order) const {
  for (size_t i = 0; i < orders_.size(); ++i) {
    if (orders_[i] == order) return values_[i];
  }
  return absl::NotFoundError(absl::StrCat("order ", order, " is not on the RDP grid"));
}

absl::Status RdpCurve::Compose(const RdpCurve& other, double times) {
  if (!(times >= 0) || std::isinf(times)) {
    return absl::InvalidArgumentError(
        absl::StrCat("composition count must be finite and >= 0, got ", times));
  }
  if (other.orders_ != orders_) {
    return absl::InvalidArgumentError("cannot compose RDP curves on different grids of orders");
  }
  for (size_t i = 0; i < values_.size(); ++i) {
    // 0 * inf would be NaN: composing a mechanism zero times adds nothing.
    if (times > 0) values_[i] += times * other.values_[i];
  }
  return absl::OkStatus();
}

}  // namespace fedmf::dp
