#include "common/dp/binary_rr.h"

#include <algorithm>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/dp/samplers.h"

namespace fedmf::dp {
namespace {

absl::Status CheckEpsilon(double epsilon) {
  if (!std::isfinite(epsilon) || !(epsilon > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("binary randomized response: epsilon=", epsilon, " must be > 0"));
  }
  return absl::OkStatus();
}

}  // namespace

double BinaryRrMagnitude(int64_t dim, double epsilon) {
  // (e^eps + 1)/(e^eps - 1) = 1 / tanh(eps / 2), accurate for small eps.
  return static_cast<double>(dim) / std::tanh(epsilon / 2);
}

double BinaryRrPositiveProbability(double x, double epsilon) {
  // (x (e^eps - 1) + e^eps + 1) / (2 (e^eps + 1)) = (1 + x tanh(eps/2)) / 2.
  return 0.5 * (1 + std::clamp(x, -1.0, 1.0) * std::tanh(epsilon / 2));
}

absl::StatusOr<BinaryRrReport> BinaryRrRandomize(const Eigen::Ref<const Eigen::VectorXd>& x,
                                                 double epsilon, Rng& rng) {
  if (x.size() == 0) return absl::InvalidArgumentError("BinaryRrRandomize: empty gradient");
  return BinaryRrRandomizeEntry(
      x.size(), [&x](int64_t s) { return x[s]; }, epsilon, rng);
}

absl::StatusOr<BinaryRrReport> BinaryRrRandomizeEntry(int64_t dim,
                                                      const std::function<double(int64_t)>& entry,
                                                      double epsilon, Rng& rng) {
  if (absl::Status s = CheckEpsilon(epsilon); !s.ok()) return s;
  if (dim < 1) {
    return absl::InvalidArgumentError(absl::StrCat("BinaryRrRandomize: dimension ", dim));
  }
  BinaryRrReport report;
  report.index = static_cast<int64_t>(UniformInt(rng, static_cast<uint64_t>(dim)));
  const double value = entry(report.index);
  if (std::isnan(value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("BinaryRrRandomize: gradient entry ", report.index, " is NaN"));
  }
  report.positive = Bernoulli(rng, BinaryRrPositiveProbability(value, epsilon));
  return report;
}

absl::StatusOr<Eigen::VectorXd> BinaryRrEstimateMean(absl::Span<const BinaryRrReport> reports,
                                                     int64_t dim, double epsilon) {
  if (absl::Status s = CheckEpsilon(epsilon); !s.ok()) return s;
  if (reports.empty() || dim < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("BinaryRrEstimateMean: ", reports.size(), " reports, dimension ", dim));
  }
  Eigen::VectorXd counts = Eigen::VectorXd::Zero(dim);  // (#positive - #negative) per coordinate
  for (size_t i = 0; i < reports.size(); ++i) {
    const BinaryRrReport& r = reports[i];
    if (r.index < 0 || r.index >= dim) {
      return absl::InvalidArgumentError(absl::StrCat(
          "BinaryRrEstimateMean: report ", i, " has index ", r.index, " outside [0, ", dim, ")"));
    }
    counts[r.index] += r.positive ? 1 : -1;
  }
  return Eigen::VectorXd(counts *
                         (BinaryRrMagnitude(dim, epsilon) / static_cast<double>(reports.size())));
}

}  // namespace fedmf::dp
