// Laplace mechanism and distributed Laplace noise. Laplace(b) has density exp(-|x|/b) / (2b) and
// gives epsilon-DP for L1 sensitivity Delta_1 with b = Delta_1 / epsilon. Floating-point Laplace
// noise leaks through the gaps of the double grid (Mironov, CCS 2012); where that matters, noise
// on an integer grid (DiscreteLaplace in discrete_gaussian.h) is exact.
//
// Distributed Laplace (HDPMF Section 4, Theorem 3, from Kotz et al. 2001): the paper states
// b sqrt(2) h c ~ Laplace(b) for h ~ Exp(1), c ~ N(0, 1); that is wrong (its variance is 4 b^2,
// not 2 b^2). The correct scale mixture is X = b sqrt(2 h) c. Two share constructions:
//  * ScaleMixtureLaplaceShare: every client adds b sqrt(2 h_j) c_ij with c_ij ~ N(0, 1/n) and ONE
//    h_j ~ Exp(1) common to the n clients; the n shares sum to Laplace(b). The aggregator must not
//    know h (given h the noise is Gaussian with known variance 2 b^2 h and pure DP is lost; HDPMF
//    lets the recommender pick h, which breaks its guarantee), and all n shares must arrive.
//  * GammaDifferenceLaplaceShare: every client adds b (G1 - G2), G ~ Gamma(1/n_min, 1) i.i.d.
//    (Laplace is infinitely divisible). No shared secret; any n >= n_min shares sum to Laplace(b)
//    plus independent symmetric noise, so dropout down to n_min keeps epsilon-DP. A simulation may
//    draw the sum of n shares at once (SummedGammaDifferenceLaplaceShares): independent Gammas of
//    one scale add their shapes, so it is b (G1 - G2), G ~ Gamma(n/n_min, 1), exactly.
#ifndef FEDMF_COMMON_DP_LAPLACE_H_
#define FEDMF_COMMON_DP_LAPLACE_H_

#include <cstdint>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/dp/rng.h"

namespace fedmf::dp {

struct LaplaceParams {
  double l1_sensitivity = 0;                                 // Delta_1 > 0
  double epsilon = 0;                                        // > 0
  double scale() const { return l1_sensitivity / epsilon; }  // b
};

// x + i.i.d. Laplace(Delta_1 / epsilon) per coordinate.
absl::StatusOr<Eigen::VectorXd> LaplaceMechanism(const Eigen::Ref<const Eigen::VectorXd>& x,
                                                 const LaplaceParams& params, Rng& rng);

// `dim` i.i.d. Exp(1): the common h of the scale-mixture construction (drawn by the clients, e.g.
// from an Rng seeded by a secret they share, never by the aggregator).
absl::StatusOr<Eigen::VectorXd> SampleSharedExponential(int64_t dim, Rng& rng);

// One client's share b sqrt(2 h_j) c_j, c_j ~ N(0, 1/clients): sum of `clients` shares with the
// same h is Laplace(b) per coordinate. h_j >= 0.
absl::StatusOr<Eigen::VectorXd> ScaleMixtureLaplaceShare(
    const Eigen::Ref<const Eigen::VectorXd>& shared_exponential, double b, int64_t clients,
    Rng& rng);

// One client's share b (G1 - G2), G ~ Gamma(1/min_clients, 1).
absl::StatusOr<Eigen::VectorXd> GammaDifferenceLaplaceShare(int64_t dim, double b,
                                                            int64_t min_clients, Rng& rng);
// The sum of `clients` >= 1 such shares in one draw: b (G1 - G2), G ~ Gamma(clients/min_clients,
// 1). With clients = 1, the draws of GammaDifferenceLaplaceShare.
absl::StatusOr<Eigen::VectorXd> SummedGammaDifferenceLaplaceShares(int64_t dim, double b,
                                                                   int64_t min_clients,
                                                                   int64_t clients, Rng& rng);

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_LAPLACE_H_
