// The Poisson Binomial Mechanism (Chen, Ozgur, Kairouz, ICML 2022) as used by DPMF-RP: the client's
// scalar/vector PBM of Algorithm 1 (p = theta x / c + 1/2, z ~ Binomial(q, p), exact sampler) and
// the server's unbiased decoder of the SecAgg sum of Algorithm 2.
//
// Decoder derivation: E[z] = q/2 + q theta x / c, so for n clients E[sum_i z_i] = n q / 2 +
// (q theta / c) sum_i x_i and
//     sum estimate  = (c / (q theta)) (sum_i z_i - n q / 2)     (unbiased for sum_i x_i)
//     mean estimate = (c / (q theta n)) (sum_i z_i - n q / 2)   (unbiased for the mean)
// with Var(sum estimate) = (c / (q theta))^2 sum_i q p_i (1 - p_i) <= n c^2 / (4 q theta^2).
// DPMF-RP Algorithm 2 writes the mean decoder as Delta_1 / sqrt(p' q theta |A|) (sum Z - q|A|/2)
// while its clients use c = Delta_1 / sqrt(p). The unbiased form is the mean estimate above with
// the c the clients used, i.e. Delta_1 / (sqrt(p') q theta |A|) when c = Delta_1 / sqrt(p'); the
// paper's square root over q theta |A| is a typo (it is dimensionally inconsistent and its own
// Appendix D uses 1 / (q theta |A|)). DPMF-RP's c: dpmf_rp/config.h PbmCoordinateClip.
//
// Privacy accounting (not here) needs exactly PbmParams, the number of coordinates, and the fewest
// clients whose sum is decoded.
#ifndef FEDMF_COMMON_DP_PBM_H_
#define FEDMF_COMMON_DP_PBM_H_

#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/dp/rng.h"

namespace fedmf::dp {

struct PbmParams {
  double clip = 0;     // c > 0: inputs lie in [-c, c]
  double theta = 0;    // in (0, 1/4]: success probabilities stay in [1/2 - theta, 1/2 + theta]
  int64_t trials = 0;  // q >= 1, at most 2^32
};

absl::Status ValidatePbmParams(const PbmParams& params);

// What to do with an input outside [-c, c]. Clamping never weakens privacy (the mechanism only
// ever sees [-c, c]) but biases the estimate. kReject still clamps an excess of at most
// 1e-12 * c (floating-point rounding of an upstream bound such as the Hadamard flattening) and
// returns InvalidArgument beyond it, naming the coordinate. NaN is always an error.
enum class PbmRangePolicy { kReject, kClamp };

// p = theta x / c + 1/2 for x in [-c, c]: computed in double (one rounding), then sampled exactly.
double PbmSuccessProbability(double x, const PbmParams& params);

absl::StatusOr<uint64_t> ScalarPbm(double x, const PbmParams& params, PbmRangePolicy policy,
                                   Rng& rng);

// Applies ScalarPbm to every coordinate; output[j] in [0, q]. For a matrix pass
// Eigen::Map<const Eigen::VectorXd>(m.data(), m.size()): coordinate order is Eigen's column-major.
absl::StatusOr<std::vector<uint64_t>> PbmEncode(const Eigen::Ref<const Eigen::VectorXd>& x,
                                                const PbmParams& params, PbmRangePolicy policy,
                                                Rng& rng);

// Unbiased estimates of sum_i x_i / of the mean from sum_i z_i over `clients` >= 1 clients. Error
// if a coordinate exceeds clients * q (a wrong client count or a corrupted aggregate).
absl::StatusOr<Eigen::VectorXd> PbmDecodeSum(absl::Span<const uint64_t> sum,
                                             const PbmParams& params, int64_t clients);
absl::StatusOr<Eigen::VectorXd> PbmDecodeMean(absl::Span<const uint64_t> sum,
                                              const PbmParams& params, int64_t clients);

// Upper bound on the variance of each coordinate of PbmDecodeSum: clients c^2 / (4 q theta^2).
double PbmSumVarianceBound(const PbmParams& params, int64_t clients);

// Bits per coordinate the SecAgg sum needs: ceil(log2(clients * q + 1)) (values 0 .. n q never
// wrap). Clients send the same width; each alone needs only ceil(log2(q + 1)).
int PbmSumBits(int64_t clients, int64_t trials);

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_PBM_H_
