#include "common/dp/pbm_calibration.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/dp/rdp_pbm_l2.h"

namespace fedmf::dp {
namespace {

constexpr double kMaxTheta = 0.25;
constexpr double kThetaRelativeTolerance = 1e-6;

absl::Status ValidateRequest(const PbmCalibrationRequest& r) {
  if (absl::Status s = ValidateBudget(r.budget); !s.ok()) return s;
  if (!(r.budget.epsilon > 0)) return absl::InvalidArgumentError("PBM needs a budget epsilon > 0");
  if (r.rounds < 1 || r.dimension < 1 || r.n_min < 1 || r.participants < r.n_min || r.max_q < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "PBM calibration needs rounds, dimension, n_min, max_q >= 1 and participants >= n_min; "
        "got rounds=",
        r.rounds, " dimension=", r.dimension, " n_min=", r.n_min, " participants=", r.participants,
        " max_q=", r.max_q));
  }
  if (!(std::isfinite(r.l2_over_clip) && r.l2_over_clip >= 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("PBM calibration needs l2_over_clip >= 0, got ", r.l2_over_clip));
  }
  return absl::OkStatus();
}

// What `rounds` rounds of PBM over `dimension` coordinates spend, measured as the budget is.
class Spender {
 public:
  explicit Spender(const PbmCalibrationRequest& r)
      : request_(r),
        orders_(r.budget.kind == PrivacyBudget::Kind::kRdp ? std::vector<double>{r.budget.order}
                                                           : r.orders) {}

  absl::StatusOr<double> Spent(double theta, int64_t q) const {
    if (request_.l2_over_clip > 0) {
      absl::StatusOr<RdpCurve> round = PbmL2RoundCurve(
          {theta, q, request_.n_min}, request_.dimension, request_.l2_over_clip, orders_);
      if (!round.ok()) return round.status();
      return Compose(*round, static_cast<double>(request_.rounds));
    }
    absl::StatusOr<RdpCurve> coordinate = PbmCoordinateCurve({theta, q, request_.n_min}, orders_);
    if (!coordinate.ok()) return coordinate.status();
    return Compose(*coordinate, static_cast<double>(request_.rounds) * request_.dimension);
  }

  absl::StatusOr<bool> Fits(double theta, int64_t q) const {
    absl::StatusOr<double> spent = Spent(theta, q);
    if (!spent.ok()) return spent.status();
    return *spent <= request_.budget.epsilon;
  }

 private:
  // What `times` copies of `step` spend, measured as the budget is.
  absl::StatusOr<double> Compose(const RdpCurve& step, double times) const {
    absl::StatusOr<RdpCurve> total = RdpCurve::Zero(orders_);
    if (!total.ok()) return total.status();
    if (absl::Status s = total->Compose(step, times); !s.ok()) return s;
    return SpentEpsilon(*total, request_.budget);
  }

  const PbmCalibrationRequest& request_;
  std::vector<double> orders_;
};

// The largest theta in (0, 1/4) that fits with q = 1, given that 1/4 does not: halve until a
// fitting theta is found, then bisect to relative precision kThetaRelativeTolerance.
absl::StatusOr<double> LargestTheta(const Spender& spender) {
  double bad = kMaxTheta;
  double good = kMaxTheta / 2;
  for (;;) {
    absl::StatusOr<bool> fits = spender.Fits(good, 1);
    if (!fits.ok()) return fits.status();
    if (*fits) break;
    bad = good;
    good /= 2;
    if (good < 1e-15) return absl::InvalidArgumentError("budget too small for PBM (theta < 1e-15)");
  }
  while (bad - good > kThetaRelativeTolerance * good) {
    const double mid = 0.5 * (good + bad);
    absl::StatusOr<bool> fits = spender.Fits(mid, 1);
    if (!fits.ok()) return fits.status();
    (*fits ? good : bad) = mid;
  }
  return good;
}

// The largest q in [1, max_q] that fits at theta = 1/4, given that q = 1 fits.
absl::StatusOr<int64_t> LargestQ(const Spender& spender, int64_t max_q) {
  int64_t good = 1;
  int64_t bad = 0;  // 0: no failing q found yet
  while (bad == 0 && good < max_q) {
    const int64_t probe = good > max_q / 2 ? max_q : 2 * good;
    absl::StatusOr<bool> fits = spender.Fits(kMaxTheta, probe);
    if (!fits.ok()) return fits.status();
    (*fits ? good : bad) = probe;
  }
  if (bad == 0) return good;
  while (bad - good > 1) {
    const int64_t mid = good + (bad - good) / 2;
    absl::StatusOr<bool> fits = spender.Fits(kMaxTheta, mid);
    if (!fits.ok()) return fits.status();
    (*fits ? good : bad) = mid;
  }
  return good;
}

}  // namespace

int BitsFor(int64_t max_value) {
  int bits = 0;
  while (bits < 63 && (int64_t{1} << bits) <= max_value) ++bits;
  return bits;
}

absl::StatusOr<PbmCalibration> CalibratePbm(const PbmCalibrationRequest& request) {
  if (absl::Status s = ValidateRequest(request); !s.ok()) return s;
  const Spender spender(request);
  PbmCalibration out;
  out.params.n_min = request.n_min;
  absl::StatusOr<bool> quarter_fits = spender.Fits(kMaxTheta, 1);
  if (!quarter_fits.ok()) return quarter_fits.status();
  if (*quarter_fits) {
    absl::StatusOr<int64_t> q = LargestQ(spender, request.max_q);
    if (!q.ok()) return q.status();
    out.params.theta = kMaxTheta;
    out.params.q = *q;
  } else {
    absl::StatusOr<double> theta = LargestTheta(spender);
    if (!theta.ok()) return theta.status();
    out.params.theta = *theta;
    out.params.q = 1;
  }
  absl::StatusOr<double> spent = spender.Spent(out.params.theta, out.params.q);
  if (!spent.ok()) return spent.status();
  out.spent_epsilon = *spent;
  out.local_bits = BitsFor(out.params.q);
  out.secagg_bits = BitsFor(request.participants * out.params.q);
  return out;
}

}  // namespace fedmf::dp
