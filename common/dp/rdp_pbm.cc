#include "common/dp/rdp_pbm.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/dp/log_space.h"

namespace fedmf::dp {
namespace {

// Noise counts N whose weight is within e^-kCoreNats of the most likely one are evaluated exactly;
// the rest are bounded (never dropped), and a bound is refined while it exceeds e^kRefineRelative
// of the total.
constexpr double kCoreNats = 40;
constexpr double kRefineRelative = -28;  // ~7e-13
// Refuse computations above this many (s, j, order) terms (about two minutes of one core).
constexpr double kMaxWork = 2e9;
constexpr int64_t kMaxOtherTrials = 10'000'000;

// log(e^(aL) - 1 - a (e^L - 1)): the moment E_Q[(P/Q)^a] - 1 contributed by one outcome with
// log-likelihood ratio L, minus its first-order part (which sums to 0). Nonnegative by convexity;
// computed without cancellation for small L and without overflow for large aL.
double LogPhi(double a, double L) {
  if (L == 0) return kLogZero;
  const double t = a * L;
  auto series = [a, L](int max_terms) {  // sum_{k >= 2} (a^k - a) L^k / k!
    double a_pow = a;
    double l_pow = L;
    double sum = 0;
    for (int k = 2; k < max_terms; ++k) {
      a_pow *= a;
      l_pow *= L / k;
      const double term = (a_pow - a) * l_pow;
      sum += term;
      if (std::abs(term) <= 1e-17 * std::abs(sum)) break;
    }
    return std::log(sum);
  };
  if (std::abs(t) < 0.5) return series(60);
  if (t > 30) {
    // For L > 0: log(1 + a expm1(L)) = L + log(a) + log1p(-(a-1)/a e^-L), and the result is
    // t + log1p(-exp(that - t)).
    const double log_linear = L + std::log(a) + std::log1p(-(a - 1) / a * std::exp(-L));
    return t + std::log1p(-std::exp(log_linear - t));
  }
  const double direct = std::expm1(t) - a * std::expm1(L);
  return direct > 0 ? std::log(direct) : series(400);
}

// log X or log Y per trial count j (row j - 1) and order (column).
using Table = std::vector<std::vector<double>>;

// log_total += exp(log_weight + log_x), entrywise.
void Accumulate(const Table& log_x, double log_weight, Table& log_total) {
  for (size_t j = 0; j < log_x.size(); ++j) {
    for (size_t o = 0; o < log_x[j].size(); ++o) {
      log_total[j][o] = LogAdd(log_total[j][o], log_weight + log_x[j][o]);
    }
  }
}

class PbmEvaluator {
 public:
  PbmEvaluator(const PbmPrivacyParams& params, const std::vector<double>& orders)
      : q_(params.q),
        orders_(orders),
        log_hi_(std::log(0.5 + params.theta)),
        log_lo_(std::log(0.5 - params.theta)) {}

  // log X_{j,N}(alpha) = log(E_Q[(P/Q)^alpha] - 1) for P = Binom(j, 1/2+theta) + Binom(N, 1/2),
  // Q = Binom(j, 1/2-theta) + Binom(N, 1/2); row j-1, column = order index.
  void Evaluate(int64_t n, Table& log_x) {
    const int64_t len_max = n + q_ + 1;
    log_p_.assign(len_max, kLogZero);
    const double log_norm = std::lgamma(n + 1.0) - n * std::numbers::ln2;
    for (int64_t k = 0; k <= n; ++k) {
      log_p_[k] = log_norm - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0);
    }
    terms_.resize(len_max);
    for (int64_t j = 1; j <= q_; ++j) {
      // Add one target trial with success probability 1/2 + theta (in place, high index first).
      for (int64_t s = n + j; s >= 0; --s) {
        log_p_[s] = LogAdd(log_lo_ + log_p_[s], s > 0 ? log_hi_ + log_p_[s - 1] : kLogZero);
      }
      // Flipping all n + j trials maps P to Q: Q(s) = P(n + j - s).
      const int64_t len = n + j + 1;
      for (size_t o = 0; o < orders_.size(); ++o) {
        for (int64_t s = 0; s < len; ++s) {
          const double log_q = log_p_[len - 1 - s];
          terms_[s] = log_q + LogPhi(orders_[o], log_p_[s] - log_q);
        }
        log_x[j - 1][o] = LogSumExp(absl::MakeConstSpan(terms_.data(), len));
      }
    }
  }

 private:
  int64_t q_;
  const std::vector<double>& orders_;
  double log_hi_;
  double log_lo_;
  std::vector<double> log_p_;
  std::vector<double> terms_;
};

}  // namespace

absl::Status ValidatePbmPrivacyParams(const PbmPrivacyParams& params) {
  if (!(params.theta >= 0 && params.theta < 0.5)) {
    return absl::InvalidArgumentError(
        absl::StrCat("PBM theta must be in [0, 1/2), got ", params.theta));
  }
  if (params.q < 1)
    return absl::InvalidArgumentError(absl::StrCat("PBM q must be >= 1, got ", params.q));
  if (params.n_min < 1) {
    return absl::InvalidArgumentError(absl::StrCat("PBM n_min must be >= 1, got ", params.n_min));
  }
  if (params.n_min - 1 > kMaxOtherTrials / params.q) {
    return absl::InvalidArgumentError(
        absl::StrCat("PBM (n_min - 1) * q must be <= ", kMaxOtherTrials,
                     ", got n_min=", params.n_min, " q=", params.q));
  }
  return absl::OkStatus();
}

absl::StatusOr<RdpCurve> PbmCoordinateCurve(const PbmPrivacyParams& params,
                                            std::vector<double> orders) {
  if (absl::Status s = ValidatePbmPrivacyParams(params); !s.ok()) return s;
  if (absl::Status s = ValidateOrders(orders); !s.ok()) return s;
  if (params.theta == 0) return RdpCurve::Zero(std::move(orders));

  // Fair trials among the others' M trials: N ~ Binom(M, rho), rho = 1 - 2 theta.
  const int64_t m = (params.n_min - 1) * params.q;
  const double log_rho = std::log1p(-2 * params.theta);
  const double log_unfair = std::log(2 * params.theta);
  auto log_w = [&](int64_t n) { return LogBinomial(m, n) + n * log_rho + (m - n) * log_unfair; };
  auto log_w_sum = [&](int64_t lo, int64_t hi) {  // log of the weight of [lo, hi)
    double sum = kLogZero;
    for (int64_t n = lo; n < hi; ++n) sum = LogAdd(sum, log_w(n));
    return sum;
  };
  const int64_t mode =
      std::min<int64_t>(m, static_cast<int64_t>(std::floor((m + 1) * std::exp(log_rho))));
  const double log_w_max = log_w(mode);
  int64_t a = mode;
  int64_t b = mode;
  while (a > 0 && log_w(a - 1) >= log_w_max - kCoreNats) --a;
  while (b < m && log_w(b + 1) >= log_w_max - kCoreNats) ++b;

  // Below the core, noise counts are grouped in intervals [lo, hi), first with lo = a-1, a-2,
  // a-4, ..., 0. X is nonincreasing in N (adding a fair trial is post-processing), so X(lo)
  // bounds the whole interval; intervals whose bound is not negligible are split (evaluating
  // their midpoint exactly) until it is, or until the work budget is spent.
  std::vector<int64_t> starts;
  for (int64_t d = 1; a - d > 0; d *= 2) starts.push_back(a - d);
  if (a > 0) starts.push_back(0);
  const double terms_per_n = static_cast<double>(params.q) * (orders.size() + 2);
  double work = 0;
  for (int64_t n = a; n <= b; ++n) work += (n + params.q) * terms_per_n;
  for (int64_t n : starts) work += (n + params.q) * terms_per_n;
  if (work > kMaxWork) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "PBM accounting for theta=", params.theta, " q=", params.q, " n_min=", params.n_min,
        " needs ~", work, " terms; a smaller n_min gives a valid, looser bound"));
  }

  PbmEvaluator evaluator(params, orders);
  const Table empty(params.q, std::vector<double>(orders.size(), kLogZero));
  Table core = empty;
  Table log_x = empty;
  for (int64_t n = a; n <= b; ++n) {
    evaluator.Evaluate(n, log_x);
    double log_weight = log_w(n);
    if (n == b && b < m) {
      // X(b) bounds every N > b; their weight is at most the binomial's geometric tail.
      const double log_ratio = std::log(static_cast<double>(m - b - 1)) + log_rho -
                               std::log(static_cast<double>(b + 2)) - log_unfair;
      double log_tail = log_w(b + 1) + std::log(static_cast<double>(m - b));
      if (log_ratio < 0) {
        log_tail = std::min(log_tail, log_w(b + 1) - std::log(-std::expm1(log_ratio)));
      }
      log_weight = LogAdd(log_weight, log_tail);
    }
    Accumulate(log_x, log_weight, core);
  }

  struct Interval {
    int64_t lo;
    int64_t hi;
    double log_weight;
    Table log_x;  // X(lo)
  };
  std::vector<Interval> lower;
  for (size_t i = 0; i < starts.size(); ++i) {
    const int64_t hi = i == 0 ? a : starts[i - 1];
    evaluator.Evaluate(starts[i], log_x);
    lower.push_back({starts[i], hi, log_w_sum(starts[i], hi), log_x});
  }
  Table total;
  for (;;) {
    total = core;
    for (const Interval& in : lower) Accumulate(in.log_x, in.log_weight, total);
    // The interval whose bound is largest relative to the total, if it is not negligible.
    Interval* worst = nullptr;
    double worst_excess = kRefineRelative;
    for (Interval& in : lower) {
      if (in.hi - in.lo < 2) continue;
      for (int64_t j = 0; j < params.q; ++j) {
        for (size_t o = 0; o < orders.size(); ++o) {
          const double excess = in.log_weight + in.log_x[j][o] - total[j][o];
          if (excess > worst_excess) {
            worst_excess = excess;
            worst = &in;
          }
        }
      }
    }
    if (worst == nullptr) break;
    const int64_t mid = worst->lo + (worst->hi - worst->lo) / 2;
    work += (mid + params.q) * terms_per_n;
    if (work > kMaxWork) break;  // the current bounds stay valid, only looser
    evaluator.Evaluate(mid, log_x);
    Interval upper{mid, worst->hi, log_w_sum(mid, worst->hi), log_x};
    worst->hi = mid;
    worst->log_weight = log_w_sum(worst->lo, mid);
    lower.push_back(std::move(upper));
  }

  // eps_j(alpha) = log(1 + Y_j(alpha)) / (alpha - 1), maximized over j.
  std::vector<double> values(orders.size(), 0.0);
  for (size_t o = 0; o < orders.size(); ++o) {
    for (int64_t j = 0; j < params.q; ++j) {
      values[o] = std::max(values[o], Log1pExp(total[j][o]) / (orders[o] - 1));
    }
  }
  return RdpCurve::Create(std::move(orders), std::move(values));
}

absl::StatusOr<RdpCurve> PbmRoundCurve(const PbmPrivacyParams& params, int64_t dimension,
                                       std::vector<double> orders) {
  if (dimension < 1) {
    return absl::InvalidArgumentError(absl::StrCat("PBM dimension must be >= 1, got ", dimension));
  }
  absl::StatusOr<RdpCurve> coordinate = PbmCoordinateCurve(params, orders);
  if (!coordinate.ok()) return coordinate.status();
  absl::StatusOr<RdpCurve> round = RdpCurve::Zero(std::move(orders));
  if (!round.ok()) return round.status();
  if (absl::Status s = round->Compose(*coordinate, static_cast<double>(dimension)); !s.ok())
    return s;
  return round;
}

}  // namespace fedmf::dp
