#include "common/dp/privacy_accountant.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace fedmf::dp {

absl::StatusOr<PrivacyAccountant> PrivacyAccountant::Create(std::vector<double> orders) {
  absl::StatusOr<PrivacyCost> zero = PrivacyCost::Zero(std::move(orders));
  if (!zero.ok()) return zero.status();
  return PrivacyAccountant(*std::move(zero));
}

absl::Status PrivacyAccountant::Compose(const PrivacyCost& step, int64_t count) {
  if (count < 0) {
    return absl::InvalidArgumentError(absl::StrCat("composition count must be >= 0, got ", count));
  }
  return spent_.Compose(step, static_cast<double>(count));
}

absl::StatusOr<bool> PrivacyAccountant::CanAfford(const PrivacyCost& step,
                                                  const PrivacyBudget& budget,
                                                  int64_t count) const {
  if (count < 0) return absl::InvalidArgumentError(absl::StrCat("count must be >= 0, got ", count));
  PrivacyCost total = spent_;
  if (absl::Status s = total.Compose(step, static_cast<double>(count)); !s.ok()) return s;
  return WithinBudget(total, budget);
}

absl::StatusOr<int64_t> PrivacyAccountant::AffordableCount(const PrivacyCost& step,
                                                           const PrivacyBudget& budget,
                                                           int64_t max_count) const {
  if (max_count < 0) {
    return absl::InvalidArgumentError(absl::StrCat("max_count must be >= 0, got ", max_count));
  }
  // Spending grows with the count, so the affordable counts form a prefix [0, k]: find k by
  // doubling, then bisection between the last count that fits and the first that does not.
  absl::StatusOr<bool> fits = CanAfford(step, budget, 0);
  if (!fits.ok()) return fits.status();
  if (!*fits) return 0;
  int64_t good = 0;
  int64_t bad = 0;  // 0: no failing count found yet
  while (bad == 0 && good < max_count) {
    const int64_t probe = good == 0 ? 1 : (good > max_count / 2 ? max_count : 2 * good);
    fits = CanAfford(step, budget, probe);
    if (!fits.ok()) return fits.status();
    (*fits ? good : bad) = probe;
  }
  if (bad == 0) return good;
  while (bad - good > 1) {
    const int64_t mid = good + (bad - good) / 2;
    fits = CanAfford(step, budget, mid);
    if (!fits.ok()) return fits.status();
    (*fits ? good : bad) = mid;
  }
  return good;
}

}  // namespace fedmf::dp
