#include "common/dp/monotone_search.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace fedmf::dp {

absl::StatusOr<double> SmallestFitting(const std::function<absl::StatusOr<bool>(double)>& fits,
                                       absl::string_view what) {
  // Bracket [lo, hi] with hi fitting and lo not, then bisect.
  double hi = 1.0;
  for (absl::StatusOr<bool> ok = fits(hi);; ok = fits(hi)) {
    if (!ok.ok()) return ok.status();
    if (*ok) break;
    hi *= 2;
    if (hi > 1e12)
      return absl::InvalidArgumentError(absl::StrCat("budget needs ", what, " above 1e12"));
  }
  double lo = hi / 2;
  for (absl::StatusOr<bool> ok = fits(lo);; ok = fits(lo)) {
    if (!ok.ok()) return ok.status();
    if (!*ok) break;
    hi = lo;
    lo /= 2;
    if (lo < 1e-12) return hi;
  }
  while (hi - lo > 1e-9 * hi) {
    const double mid = 0.5 * (lo + hi);
    absl::StatusOr<bool> ok = fits(mid);
    if (!ok.ok()) return ok.status();
    (*ok ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace fedmf::dp
