// IsPositiveFinite: the argument check of every noise scale, rate and budget (false for NaN, the
// infinities, 0 and negatives), shared by the mechanisms and the algorithms' configs.
#pragma once

#include <cmath>

namespace fedmf {

inline bool IsPositiveFinite(double x) { return std::isfinite(x) && x > 0; }

}  // namespace fedmf
