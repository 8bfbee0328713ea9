// The smallest noise that fits a budget, for calibrations whose spending decreases as the noise
// grows: bracket the threshold by doubling and halving from 1, then bisect.
#ifndef FEDMF_COMMON_DP_MONOTONE_SEARCH_H_
#define FEDMF_COMMON_DP_MONOTONE_SEARCH_H_

#include <functional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fedmf::dp {

// `fits(x)` must be false below some threshold and true above it. Returns the smallest fitting x
// to relative precision 1e-9 (x <= 1e-12 counts as fitting everything: returns the last bracket),
// InvalidArgument naming `what` when even x = 1e12 does not fit, or the first error of `fits`.
absl::StatusOr<double> SmallestFitting(const std::function<absl::StatusOr<bool>(double)>& fits,
                                       absl::string_view what);

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_MONOTONE_SEARCH_H_
