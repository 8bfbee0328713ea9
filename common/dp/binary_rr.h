// One-coordinate binary randomized response of the local-DP MF paper (Shin et al., Algorithms 1
// and 2, after Nguyen et al. 2016): a client with gradient x in [-1, 1]^D (D = m d, or q d after a
// GaussianProjection) picks one coordinate s uniformly, clamps x_s to [-1, 1], and reports only s
// and one bit T ~ Bernoulli((x_s (e^eps - 1) + e^eps + 1) / (2 (e^eps + 1))); the vector it stands
// for is +/- B e_s with B = D (e^eps + 1) / (e^eps - 1). Each report is eps-LDP (Lemma 1); the
// paper runs k iterations at eps / k each. Per client and coordinate j, E[report_j] = x_j exactly
// and Var[report_j] = B^2 / D - x_j^2, so the server's mean of n reports is an unbiased estimate
// of the clients' mean gradient with variance (1/n^2) sum_i (B^2 / D - x_ij^2).
#ifndef FEDMF_COMMON_DP_BINARY_RR_H_
#define FEDMF_COMMON_DP_BINARY_RR_H_

#include <cstdint>
#include <functional>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/dp/rng.h"

namespace fedmf::dp {

struct BinaryRrReport {
  int64_t index = 0;      // s in [0, D): coordinate of the flattened (column-major) gradient
  bool positive = false;  // T: the report is +B e_s if true, -B e_s if false
};

// B = D (e^eps + 1) / (e^eps - 1).
double BinaryRrMagnitude(int64_t dim, double epsilon);

// P(T = 1) for a picked entry x: (clamp(x, -1, 1) (e^eps - 1) + e^eps + 1) / (2 (e^eps + 1)).
// Over all x the ratio of two such probabilities (or of their complements) is at most e^eps.
double BinaryRrPositiveProbability(double x, double epsilon);

// Client side. Error if x is empty, epsilon is not > 0, or x_s is NaN.
absl::StatusOr<BinaryRrReport> BinaryRrRandomize(const Eigen::Ref<const Eigen::VectorXd>& x,
                                                 double epsilon, Rng& rng);
// The same for a gradient too large to materialize: `entry(s)` computes x_s for the one picked
// coordinate s in [0, dim). Draws from `rng` as BinaryRrRandomize does on a vector of dim values.
absl::StatusOr<BinaryRrReport> BinaryRrRandomizeEntry(int64_t dim,
                                                      const std::function<double(int64_t)>& entry,
                                                      double epsilon, Rng& rng);

// Server side: (1/n) sum of the n reports' vectors, dimension D. Error if there are no reports or
// a report's index is outside [0, D) (reports come from the network).
absl::StatusOr<Eigen::VectorXd> BinaryRrEstimateMean(absl::Span<const BinaryRrReport> reports,
                                                     int64_t dim, double epsilon);

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_BINARY_RR_H_
