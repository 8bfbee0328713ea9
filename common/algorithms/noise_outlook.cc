#include "common/algorithms/noise_outlook.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace fedmf::algorithms {
namespace {

// The ratio at `nsr`, linear in log(nsr) between neighbouring points, held outside them.
double Interpolate(absl::Span<const OutlookPoint> points, double nsr) {
  if (nsr <= points.front().noise_to_signal) return points.front().f1_over_dp_popularity;
  for (size_t i = 1; i < points.size(); ++i) {
    const OutlookPoint& lo = points[i - 1];
    const OutlookPoint& hi = points[i];
    if (nsr <= hi.noise_to_signal) {
      const double t =
          std::log(nsr / lo.noise_to_signal) / std::log(hi.noise_to_signal / lo.noise_to_signal);
      return lo.f1_over_dp_popularity + t * (hi.f1_over_dp_popularity - lo.f1_over_dp_popularity);
    }
  }
  return points.back().f1_over_dp_popularity;
}

}  // namespace

absl::Status ValidateOutlookPoints(absl::Span<const OutlookPoint> points) {
  for (size_t i = 0; i < points.size(); ++i) {
    const OutlookPoint& p = points[i];
    const bool increasing = i == 0 || p.noise_to_signal > points[i - 1].noise_to_signal;
    if (!(p.noise_to_signal > 0) || !std::isfinite(p.noise_to_signal) || !increasing ||
        !(p.f1_over_dp_popularity >= 0) || !std::isfinite(p.f1_over_dp_popularity)) {
      return absl::InvalidArgumentError(
          absl::StrCat("outlook point ", i, " (noise_to_signal ", p.noise_to_signal, ", ratio ",
                       p.f1_over_dp_popularity,
                       "): need noise_to_signal > 0, strictly increasing, and a ratio >= 0"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<NoiseOutlook>> ComputeNoiseOutlook(
    const std::optional<dp::LedgerEntry>& first_release, int64_t dimension, int64_t cohort,
    absl::Span<const OutlookPoint> points) {
  if (dimension < 1 || cohort < 1) {
    return absl::InvalidArgumentError(absl::StrCat("noise outlook: dimension ", dimension,
                                                   " and cohort ", cohort, " must be >= 1"));
  }
  if (absl::Status s = ValidateOutlookPoints(points); !s.ok()) return s;
  if (!first_release.has_value() || first_release->pure_epsilon.has_value()) return std::nullopt;
  if (first_release->rdp.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("noise outlook: the release has ",
                                                   first_release->rdp.size(),
                                                   " RDP values, expected one (order 2)"));
  }
  const double rdp2 = first_release->rdp[0];
  if (!(rdp2 > 0) || !std::isfinite(rdp2)) return std::nullopt;  // noiseless or no guarantee
  NoiseOutlook outlook;
  outlook.noise_multiplier = 1 / std::sqrt(rdp2);
  outlook.dimension = dimension;
  outlook.cohort = cohort;
  outlook.noise_to_signal = 2 * outlook.noise_multiplier *
                            std::sqrt(static_cast<double>(dimension)) / static_cast<double>(cohort);
  if (!points.empty()) {
    outlook.f1_over_dp_popularity = Interpolate(points, outlook.noise_to_signal);
    outlook.extrapolated = outlook.noise_to_signal < points.front().noise_to_signal ||
                           outlook.noise_to_signal > points.back().noise_to_signal;
  }
  return outlook;
}

}  // namespace fedmf::algorithms
