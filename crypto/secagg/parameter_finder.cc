#include "crypto/secagg/parameter_finder.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/str_format.h"

namespace fedmf::secagg {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();
constexpr double kLn2 = 0.69314718055994530942;

double LogFactorial(int x) { return std::lgamma(static_cast<double>(x) + 1.0); }

double LogChoose(int n, int k) {
  if (k < 0 || k > n) return kNegInf;
  return LogFactorial(n) - LogFactorial(k) - LogFactorial(n - k);
}

// ln(e^a + e^b) without overflow.
double LogAdd(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double hi = std::max(a, b), lo = std::min(a, b);
  return hi + std::log1p(std::exp(lo - hi));
}

// tail[a + 1] = ln P[X > a] for a in [-1, draws], X ~ Hypergeometric(population, successes, draws).
std::vector<double> LogTails(int population, int successes, int draws) {
  std::vector<double> tail(static_cast<size_t>(draws) + 2, kNegInf);
  const double log_total = LogChoose(population, draws);
  double acc = kNegInf;
  for (int x = draws; x >= 0; --x) {
    tail[static_cast<size_t>(x) + 1] = acc;  // P[X > x]
    acc = LogAdd(
        acc, LogChoose(successes, x) + LogChoose(population - successes, draws - x) - log_total);
  }
  tail[0] = std::min(acc, 0.0);  // P[X > -1] = 1 up to rounding
  return tail;
}

double TailAt(const std::vector<double>& tail, int a) {
  if (a < -1) return 0.0;  // P[X > a] = 1
  if (a + 1 >= static_cast<int>(tail.size())) return kNegInf;
  return tail[static_cast<size_t>(a) + 1];
}

int MaxCorruptNeighbors(ThreatModel threat, int degree, int t) {
  return threat == ThreatModel::kSemiHonest ? t - 1 : std::min(t - 1, 2 * t - degree - 2);
}

}  // namespace

double LogHypergeometricTail(int population, int successes, int draws, int a) {
  if (population < 0 || successes < 0 || successes > population || draws < 0 ||
      draws > population) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return TailAt(LogTails(population, successes, draws), a);
}

double LogHararyDisconnectionBound(int n, int degree, int removed) {
  if (degree >= n - 1 || removed < degree) return kNegInf;
  const double log_pairs =
      std::log(static_cast<double>(n)) + std::log(static_cast<double>(n - degree - 1)) - kLn2;
  const double log_all_removed = LogFactorial(removed) - LogFactorial(removed - degree) -
                                 (LogFactorial(n) - LogFactorial(n - degree));
  return log_pairs + log_all_removed;
}

absl::StatusOr<GraphParameters> FindGraphParameters(const ParameterRequirements& r) {
  const int n = r.num_clients;
  if (n < 2 || n > kMaxClients || !(r.corrupt_fraction >= 0 && r.corrupt_fraction < 1) ||
      !(r.dropout_fraction >= 0 && r.dropout_fraction < 1) ||
      !(r.corrupt_fraction + r.dropout_fraction < 1) || !(r.security_bits > 0) ||
      !(r.correctness_bits > 0)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "parameter finder: need 2 <= n=%d <= %d, corrupt=%g and dropout=%g in [0, 1) with sum < "
        "1, security=%g and correctness=%g bits > 0",
        n, kMaxClients, r.corrupt_fraction, r.dropout_fraction, r.security_bits,
        r.correctness_bits));
  }
  // A tiny slack keeps e.g. 0.1 * 1000 from flooring to 99 (floating point).
  const int corrupt = static_cast<int>(std::floor(r.corrupt_fraction * n + 1e-9));
  const int dropped = static_cast<int>(std::floor(r.dropout_fraction * n + 1e-9));
  const double log_n = std::log(static_cast<double>(n));
  const double privacy_budget = -(r.security_bits + 1) * kLn2;  // per privacy event
  const double correctness_budget = -r.correctness_bits * kLn2;

  for (int k = 2; k < n - 1; k += 2) {
    const double p1 = LogHararyDisconnectionBound(n, k, corrupt + dropped);
    if (p1 > privacy_budget) continue;
    const std::vector<double> corrupt_tail = LogTails(n - 1, corrupt, k);
    const std::vector<double> dropped_tail = LogTails(n - 1, dropped, k);
    for (int t = 2; t <= k + 1; ++t) {
      const double p2 = log_n + TailAt(corrupt_tail, MaxCorruptNeighbors(r.threat, k, t));
      if (p2 > privacy_budget) continue;
      const double c1 = log_n + TailAt(dropped_tail, k - t);
      if (c1 > correctness_budget) break;  // a larger t only makes C1 worse
      GraphParameters out;
      out.graph = GraphKind::kHarary;
      out.degree = k;
      out.threshold = t;
      out.log2_privacy_failure = LogAdd(p1, p2) / kLn2;
      out.log2_correctness_failure = c1 / kLn2;
      return out;
    }
  }

  const int t = n - dropped;
  const bool secure = r.threat == ThreatModel::kSemiHonest ? t > corrupt : 2 * t > n + corrupt;
  if (t < 2 || !secure) {
    return absl::NotFoundError(absl::StrFormat(
        "no parameters for n=%d with %d corrupt and %d dropped clients: the complete graph would "
        "need t=%d to tolerate the dropouts, which is %s",
        n, corrupt, dropped, t,
        t < 2 ? "below 2"
              : (r.threat == ThreatModel::kSemiHonest ? "not above the corrupt count"
                                                      : "not above (n + corrupt) / 2")));
  }
  GraphParameters out;
  out.graph = GraphKind::kComplete;
  out.degree = 0;
  out.threshold = t;
  out.log2_privacy_failure = kNegInf;
  out.log2_correctness_failure = kNegInf;
  return out;
}

}  // namespace fedmf::secagg
