// Local-DP matrix factorization of Shin et al. (docs/algorithms.md, "ldp-gd and ldp-gd-dr"): every
// round, each sampled user reports ONE coordinate of their item gradient (Private GD, the m x d
// gradient; Private GD-DR, its q x d random projection Phi grad) by binary randomized response at
// eps/k (common/dp/binary_rr.h); the server averages the reports, recovers an m x d gradient and
// steps V; each user steps their own factor u_i on the device (its state). Pure eps/k-LDP per
// user per round, k rounds exactly: the unit is one user's whole data.
// This file: the configuration's checks, the schedule, the privacy release, the projection of a
// round and the one-coordinate report's encoding (a sparse vector of one value, +1 or -1 mod 2^32).
#ifndef FEDMF_COMMON_ALGORITHMS_LDP_GD_LDP_GD_H_
#define FEDMF_COMMON_ALGORITHMS_LDP_GD_LDP_GD_H_

#include <cstdint>
#include <memory>
#include <optional>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "common/algorithms/contribution_vector.h"
#include "common/algorithms/scorer.h"
#include "common/dp/binary_rr.h"
#include "common/dp/gaussian_projection.h"
#include "common/dp/privacy_ledger.h"
#include "fedmf/v1/ldp_gd.pb.h"

namespace fedmf::algorithms::ldp_gd {

inline constexpr absl::string_view kPrivateGd = "ldp-gd";
inline constexpr absl::string_view kPrivateGdDr = "ldp-gd-dr";
// Defaults of the options (new_run.cc) and of the central non-private GD (tools/central): the
// paper's d and lambdas, our step and initialization for MovieLens-scale data, and the client-local
// scoring of DPMF-RP's ML-100K settings.
inline constexpr int kDefaultRank = 15;
inline constexpr double kDefaultLearningRate = 2;
inline constexpr double kDefaultLambda = 1e-8;
inline constexpr double kDefaultInitScale = 0.1;
inline constexpr double kDefaultScoreLambda = 0.25;
inline constexpr double kDefaultScoreKappa = 15;
// Sums of reports in Z_{2^32}: a coordinate's count of (+1) - (-1) reports stays in (-2^31, 2^31).
inline constexpr int kBits = 32;

// The algorithm's name for a configuration: ldp-gd without projection, ldp-gd-dr with.
absl::string_view AlgorithmName(const v1::LdpGdConfig& config);

// InvalidArgument naming the first bad field (a configuration may come from the network).
absl::Status ValidateConfig(const v1::LdpGdConfig& config);

// The config's rating scale (predicted ratings are clamped to it).
inline RatingScale RatingScaleOf(const v1::LdpGdConfig& config) {
  return {.min = config.rating_min(), .max = config.rating_max()};
}

// Rows of the reported gradient: m, or q with a projection.
int64_t ReportRows(const v1::LdpGdConfig& config);
// D = ReportRows * d: the coordinates a report picks from, the plan's length.
int64_t ReportDim(const v1::LdpGdConfig& config);
// eps / k: one report's pure epsilon (rounded down by ulps where k of them would add up to more
// than eps in floating point).
double RoundEpsilon(const v1::LdpGdConfig& config);
// gamma_t = gamma_0 / (t + 1), the users' step at round t.
double UserStep(const v1::LdpGdConfig& config, int64_t round);
// gamma_t / f_k, the server's step of V at round t (f_k = k^2 with the correction, else 1).
double ItemStep(const v1::LdpGdConfig& config, int64_t round);

// What round `round` releases about each of `participants` users: pure eps/k, unit user, n_min 1
// (local DP needs no other participant's honesty). The coordinator's and each user's own ledger.
dp::LedgerEntry RoundRelease(const v1::LdpGdConfig& config, int64_t round, int64_t participants);

// The public Phi of round `round` (null without a projection): one matrix for the run in the
// paper's mode, a fresh one per round in the unbiased mode. A process builds each Phi once while
// anything holds it (q m values: 572 MB at MovieLens-20M's shape), so its client hosts and its
// coordinator share one, and a client keeps it from one round's model to the next.
absl::StatusOr<std::shared_ptr<const dp::GaussianProjection>> RoundProjection(
    const v1::LdpGdConfig& config, int64_t round);

// The initial item factors V_0 (m x d) and a user's first factor u_i^0, N(0, init_scale^2) from
// the public seed: data-independent, so public without cost, and the same in every binary (the
// central non-private GD starts where the federated runs start).
Eigen::MatrixXd InitialItemFactors(const v1::LdpGdConfig& config);
Eigen::VectorXd InitialUserFactor(const v1::LdpGdConfig& config, uint32_t participant_id);

// A report as the participant's upload: coordinate report.index holds 1 (+B) or 2^32 - 1 (-B).
ContributionVector EncodeReport(const dp::BinaryRrReport& report);
// OK iff `vector` is one report of a D-coordinate gradient: sparse, exactly one coordinate below
// D, value 1 or 2^32 - 1. InvalidArgument saying what is wrong otherwise.
absl::Status CheckReport(const ContributionVector& vector, int64_t dim);

// The mean of `contributors` reports from their sum (D values mod 2^32): (#(+1) - #(-1)) * B /
// contributors per coordinate, as a ReportRows x d matrix (coordinate s is row s / d, column
// s % d). InvalidArgument for a wrong length, no contributors, or a count beyond them.
absl::StatusOr<Eigen::MatrixXd> DecodeMeanReport(const v1::LdpGdConfig& config,
                                                 absl::Span<const uint64_t> sum,
                                                 int64_t contributors);

}  // namespace fedmf::algorithms::ldp_gd

#endif  // FEDMF_COMMON_ALGORITHMS_LDP_GD_LDP_GD_H_
