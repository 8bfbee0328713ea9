// Fixed-point encoding of metric sums (user_metrics.h) as vectors in Z_{2^62}, for federated
// evaluation: every user encodes their own values, the vectors of at most max_contributors users
// are added mod 2^62 (through secure aggregation) and the sum decodes exactly.
//
// Bound. Every value v of one user (a field of that user's MetricSums) is clamped to
// [0, 2^24] (NaN and larger values become 2^24, and the user is counted in clamped_users) and
// encoded as round(v 2^f). With L = ceil(log2(max_contributors)) and f = 61 - 24 - L, every
// coordinate of a sum of at most max_contributors vectors is at most 2^L 2^(24 + f) = 2^61 <
// 2^62: the sum cannot wrap. Integer addition is exact, so a decoded sum of n vectors differs from
// the exact sum of the users' values by at most n 2^-(f + 1) per value, and counts are exact.
// f >= 16 (resolution 1.5e-5 per user) limits max_contributors to 2^21.
// A user whose model predicts no ratings encodes zero error slots; a decoded sum of such users
// shows it as MetricSums::errors_absent() (user_metrics.h), so the format needs no slot for it.
#ifndef FEDMF_COMMON_METRICS_METRIC_CODEC_H_
#define FEDMF_COMMON_METRICS_METRIC_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/metrics/user_metrics.h"

namespace fedmf::metrics {

class MetricCodec {
 public:
  static constexpr int kBits = 62;       // the sum lives in Z_{2^62}
  static constexpr int kValueBits = 24;  // per-user values are clamped to [0, 2^24]
  static constexpr int kMinFractionBits = 16;
  // num_ratings, squared_error, absolute_error, user_rmse, error_users, precision, recall, ap,
  // ap_at_n, ndcg, ranking_users, skipped_users, clamped_users.
  static constexpr size_t kLength = 13;

  // The format for sums of at most `max_contributors` vectors. InvalidArgument unless
  // 1 <= max_contributors <= 2^21.
  static absl::StatusOr<MetricCodec> ForContributors(int64_t max_contributors);

  int fraction_bits() const { return fraction_bits_; }  // f
  int bits() const { return kBits; }
  size_t length() const { return kLength; }
  int64_t max_contributors() const { return max_contributors_; }

  // One user's values as kLength integers < 2^kBits (clamped as described above).
  std::vector<uint64_t> Encode(const MetricSums& user) const;

  struct Decoded {
    MetricSums sums;
    int64_t clamped_users = 0;  // users with a value clamped to [0, 2^24]: those sums are low
  };
  // The sum (mod 2^62) of `contributors` encoded vectors. InvalidArgument for a length other
  // than kLength or contributors outside [1, max_contributors]; DataLoss for a coordinate above
  // contributors 2^(24 + f) or a count that is not a whole number (no honest sum has either).
  absl::StatusOr<Decoded> Decode(absl::Span<const uint64_t> sum, int64_t contributors) const;

 private:
  MetricCodec(int64_t max_contributors, int fraction_bits)
      : max_contributors_(max_contributors), fraction_bits_(fraction_bits) {}

  int64_t max_contributors_;
  int fraction_bits_;
};

}  // namespace fedmf::metrics

#endif  // FEDMF_COMMON_METRICS_METRIC_CODEC_H_
