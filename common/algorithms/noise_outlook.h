// The noise outlook of a fresh run, printed when it starts (server/coordinator_setup.cc): how loud
// the noise of its first release is against the largest signal its cohort can send, and what the
// measurements of docs/results/privacy-utility.md predict from that.
//   noise_to_signal = 2 z sqrt(D) / n: the expected L2 norm of the release's noise, z Delta
//   sqrt(D) with Delta the replace-one L2 sensitivity (twice the largest contribution b of one
//   user) and D the values per user, over n b, the norm of the sum when each of the cohort's n
//   users sends its largest contribution in one direction (so it is a lower bound on the ratio
//   the model sees). z is read from the release's RDP at order 2, which is 1 / z^2 for the
//   Gaussian (alpha / (2 z^2)) and within 1% of it for the distributed discrete Gaussian at
//   fedmf's scales; other mechanisms (PBM) get the Gaussian with the same order-2 RDP.
//   Prediction: an algorithm that registered measured points (noise_to_signal, F1@10 of its
//   private model over DP popularity's at the same budget and split) gets the ratio interpolated
//   linearly in log(noise_to_signal), held at the end values outside the measured range (and
//   flagged so). Below 1 the run is predicted not to beat DP popularity.
// A release without noise, or charged in pure epsilon (local randomizers), has no outlook.
#ifndef FEDMF_COMMON_ALGORITHMS_NOISE_OUTLOOK_H_
#define FEDMF_COMMON_ALGORITHMS_NOISE_OUTLOOK_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/dp/privacy_ledger.h"

namespace fedmf::algorithms {

// One measured run: its first release's noise_to_signal and F1@10 over DP popularity's.
struct OutlookPoint {
  double noise_to_signal = 0;
  double f1_over_dp_popularity = 0;
};

struct NoiseOutlook {
  double noise_multiplier = 0;  // z
  int64_t dimension = 0;        // D
  int64_t cohort = 0;           // n
  double noise_to_signal = 0;
  // Interpolated from the algorithm's points; nullopt when it registered none.
  std::optional<double> f1_over_dp_popularity;
  bool extrapolated = false;  // noise_to_signal is outside the measured points' range
};

// InvalidArgument naming the point unless every noise_to_signal is finite, > 0 and larger than
// the one before, and every ratio finite and >= 0.
absl::Status ValidateOutlookPoints(absl::Span<const OutlookPoint> points);

// The outlook of a release `first_release` (the updater's RoundPrivacy of round 0 at `cohort`
// participants, on the orders {2}) of `dimension` values per user. nullopt for no release or a
// pure-epsilon one; InvalidArgument for a dimension or cohort < 1, an entry without exactly one
// RDP value, or invalid `points`.
absl::StatusOr<std::optional<NoiseOutlook>> ComputeNoiseOutlook(
    const std::optional<dp::LedgerEntry>& first_release, int64_t dimension, int64_t cohort,
    absl::Span<const OutlookPoint> points);

}  // namespace fedmf::algorithms

#endif  // FEDMF_COMMON_ALGORITHMS_NOISE_OUTLOOK_H_
