#include "common/metrics/metric_codec.h"

#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace fedmf::metrics {
namespace {

// Coordinates of the vector (metric_codec.h lists them in this order).
enum Slot : size_t {
  kNumRatings,
  kSquaredError,
  kAbsoluteError,
  kUserRmse,
  kErrorUsers,
  kPrecision,
  kRecall,
  kAp,
  kApAtN,
  kNdcg,
  kRankingUsers,
  kSkippedUsers,
  kClampedUsers,
  kNumSlots,
};
static_assert(kNumSlots == MetricCodec::kLength);

constexpr int kMaxLog2Contributors =
    MetricCodec::kBits - 1 - MetricCodec::kValueBits - MetricCodec::kMinFractionBits;  // 21
constexpr double kMaxValue = static_cast<double>(int64_t{1} << MetricCodec::kValueBits);

// ceil(log2(n)) for n >= 1.
int CeilLog2(int64_t n) {
  int l = 0;
  while ((int64_t{1} << l) < n) ++l;
  return l;
}

class Encoder {
 public:
  explicit Encoder(int fraction_bits) : fraction_bits_(fraction_bits), out_(kNumSlots, 0) {}

  void Value(Slot slot, double v) {
    if (!(v >= 0 && v <= kMaxValue)) {  // also NaN
      clamped_ = true;
      v = v < 0 ? 0 : kMaxValue;
    }
    out_[slot] = static_cast<uint64_t>(std::nearbyint(std::ldexp(v, fraction_bits_)));
  }
  void Count(Slot slot, int64_t n) {
    if (n < 0 || n > (int64_t{1} << MetricCodec::kValueBits)) {
      clamped_ = true;
      n = n < 0 ? 0 : int64_t{1} << MetricCodec::kValueBits;
    }
    out_[slot] = static_cast<uint64_t>(n) << fraction_bits_;
  }
  std::vector<uint64_t> Finish() {
    Count(kClampedUsers, clamped_ ? 1 : 0);
    return std::move(out_);
  }

 private:
  const int fraction_bits_;
  std::vector<uint64_t> out_;
  bool clamped_ = false;
};

}  // namespace

absl::StatusOr<MetricCodec> MetricCodec::ForContributors(int64_t max_contributors) {
  if (max_contributors < 1 || max_contributors > (int64_t{1} << kMaxLog2Contributors)) {
    return absl::InvalidArgumentError(
        absl::StrCat("federated metrics: max_contributors must be in [1, 2^", kMaxLog2Contributors,
                     "], got ", max_contributors));
  }
  return MetricCodec(max_contributors, kBits - 1 - kValueBits - CeilLog2(max_contributors));
}

std::vector<uint64_t> MetricCodec::Encode(const MetricSums& user) const {
  Encoder e(fraction_bits_);
  e.Count(kNumRatings, user.num_ratings);
  e.Value(kSquaredError, user.squared_error);
  e.Value(kAbsoluteError, user.absolute_error);
  e.Value(kUserRmse, user.user_rmse);
  e.Count(kErrorUsers, user.error_users);
  e.Value(kPrecision, user.precision);
  e.Value(kRecall, user.recall);
  e.Value(kAp, user.ap);
  e.Value(kApAtN, user.ap_at_n);
  e.Value(kNdcg, user.ndcg);
  e.Count(kRankingUsers, user.ranking_users);
  e.Count(kSkippedUsers, user.skipped_users);
  return e.Finish();
}

absl::StatusOr<MetricCodec::Decoded> MetricCodec::Decode(absl::Span<const uint64_t> sum,
                                                         int64_t contributors) const {
  if (sum.size() != kLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("federated metrics: sum has ", sum.size(), " values, expected ", kLength));
  }
  if (contributors < 1 || contributors > max_contributors_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "federated metrics: ", contributors, " contributors, expected 1 to ", max_contributors_));
  }
  // contributors <= 2^L, so the bound is at most 2^61: no overflow.
  const uint64_t bound = static_cast<uint64_t>(contributors) << (kValueBits + fraction_bits_);
  for (size_t i = 0; i < kLength; ++i) {
    if (sum[i] > bound) {
      return absl::DataLossError(absl::StrCat("federated metrics: coordinate ", i, " = ", sum[i],
                                              " exceeds ", contributors, " users' maximum ",
                                              bound));
    }
  }
  const uint64_t fraction_mask = (uint64_t{1} << fraction_bits_) - 1;
  // Whole and fractional parts separately: each converts to double exactly.
  const auto value = [&](Slot s) {
    return static_cast<double>(sum[s] >> fraction_bits_) +
           std::ldexp(static_cast<double>(sum[s] & fraction_mask), -fraction_bits_);
  };
  absl::Status status;
  const auto count = [&](Slot s) -> int64_t {
    if ((sum[s] & fraction_mask) != 0 && status.ok()) {
      status = absl::DataLossError(
          absl::StrCat("federated metrics: count coordinate ", static_cast<size_t>(s), " = ",
                       sum[s], " is not a whole number at scale 2^", fraction_bits_));
    }
    return static_cast<int64_t>(sum[s] >> fraction_bits_);
  };
  Decoded d;
  d.sums.num_ratings = count(kNumRatings);
  d.sums.squared_error = value(kSquaredError);
  d.sums.absolute_error = value(kAbsoluteError);
  d.sums.user_rmse = value(kUserRmse);
  d.sums.error_users = count(kErrorUsers);
  d.sums.precision = value(kPrecision);
  d.sums.recall = value(kRecall);
  d.sums.ap = value(kAp);
  d.sums.ap_at_n = value(kApAtN);
  d.sums.ndcg = value(kNdcg);
  d.sums.ranking_users = count(kRankingUsers);
  d.sums.skipped_users = count(kSkippedUsers);
  d.clamped_users = count(kClampedUsers);
  if (!status.ok()) return status;
  return d;
}

}  // namespace fedmf::metrics
