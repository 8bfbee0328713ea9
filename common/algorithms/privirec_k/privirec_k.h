// PriviRec-k (Nicolas et al., "Secure Federated Graph-Filtering for Recommender Systems", sec. 3.4
// and Algorithm 1, with its slips fixed: docs/algorithms.md, "PriviRec-k"): GF-CF (or BSPM) from a
// rank-k basis of P~ = R~^T R~ (alpha = 1/2) computed by the distributed power method, a fixed
// population of users and L + 1 secure sums (the iterate has k + p columns, p >= 0 the
// oversampling, of which the basis keeps k):
//   phase 0     degrees: user u sends its item indicator R_u; the sum is diag(V) (privirec.h).
//   phase l     power step l = 1..L: user u sends A_u^T (A_u X_(l-1)), A_u = d_u^-1/2 R_u V^-1/2
//               its row of R~ (1 x m), X_(l-1) the broadcast m x k iterate with orthonormal
//               columns; non-zero only on u's d_u rows (sparse: d_u k values). The sum is
//               Y_l = P~ X_(l-1); the coordinator's QR Y_l = X_l T_l gives the next iterate. L
//               counts these secure sums (the paper's loop "l = 0..L-1" also makes L of them).
//   finish      after Y_L: S_k = X_L and either the paper's eigenvalues diag(T_L) (sign made
//               positive as Gram-Schmidt's, but unsorted and only estimates) or Rayleigh-Ritz
//               on the public k x k matrix H = X_(L-1)^T Y_L = X_(L-1)^T P~ X_(L-1): H = W Theta
//               W^T, descending, and S_k = the Q of Y_L W (same span as X_L, columns paired with
//               Theta); with p > 0 the top k Ritz pairs, or X_L's first k columns. Each client
//               builds its filter from S_k alone (no client needs P~): GF-CF's F = S_k Lambda
//               S_k^T + gamma V^-1/2 S_r S_r^T V^1/2, or BSPM with P~_k = S_k Lambda S_k^T for
//               P~, S_r the r = low_pass_rank columns of the largest estimates (r = k: the
//               paper's).
// Fixed point: |coordinate| <= |A_uj| |A_u x| <= ||A_u||^2 <= 1 (||x|| = 1, ||A_u||^2 =
// sum_{i in u} 1 / (d_u V_i) <= 1), sent as round(y 2^f) in [-2^f, 2^f] mod 2^b; the sum of n
// users lies in [-n 2^f, n 2^f] and b = f + CountBits(n) + 1 keeps it inside the centered range
// [-2^(b-1), 2^(b-1)): nothing wraps. A decoded coordinate is within n 2^-(f+1) of the exact one
// (at most n users round it, each by <= 2^-(f+1)). b <= 61 and f <= 52: f = 45 for Gowalla's
// 29,858 users (error <= 4.3e-10).
#ifndef FEDMF_COMMON_ALGORITHMS_PRIVIREC_K_PRIVIREC_K_H_
#define FEDMF_COMMON_ALGORITHMS_PRIVIREC_K_PRIVIREC_K_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "common/algorithms/lib/graph_filter/config.h"
#include "common/algorithms/lib/graph_filter/item_filter.h"
#include "common/algorithms/lib/graph_filter/singular_vectors.h"
#include "fedmf/v1/privirec_k.pb.h"

namespace fedmf::algorithms::privirec_k {

using graph_filter::RowMatrix;
using graph_filter::SingularBasis;

inline constexpr absl::string_view kAlgorithmName = "privirec-k";
inline constexpr int kDegreePhase = 0;

// The largest f with PowerBits <= 61 (privirec's kMaxSumBits), at most 52.
int DefaultFracBits(int64_t num_users);
// Bits of a power sum: f + CountBits(n) + 1 (signed).
int PowerBits(const v1::PriviRecKConfig& config);
// The error bound of a decoded power-sum coordinate: n 2^-(f+1).
double PowerErrorBound(const v1::PriviRecKConfig& config);
// k + p: the columns of the power iterate.
int IterateColumns(const v1::PriviRecKConfig& config);
// m (k + p): a power phase's coordinates (row-major m x (k + p)).
uint64_t PowerLength(const v1::PriviRecKConfig& config);
// The values a model's `basis` holds: none before the degrees are applied, the iterate
// (PowerLength) while summing, the final m x k basis at round 1.
uint64_t BasisLength(const v1::PriviRecKModel& model);
// The iterate the users multiply in power phase l (X_(l-1), m x (k + p)); the model must be in a
// power phase with BasisLength values.
Eigen::Map<const RowMatrix> PowerIterate(const v1::PriviRecKModel& model);

// InvalidArgument naming the first bad field (the config may come from the network): m >= 1,
// n >= 1, k in [1, m], p >= 0 with k + p <= m, L >= 1, f >= 1 with PowerBits <= 61 and f <= 52,
// gamma finite, a filter built from a basis (FilterConfig), low_pass_rank in [0, k], and the DP
// option's fields (noise.h).
absl::Status ValidateConfig(const v1::PriviRecKConfig& config);

// The bits of `phase`'s sum: CountBits(n) for the degrees, PowerBits for a power sum, or with the
// DP option the noisy sum's modulus (noise.h).
absl::StatusOr<int> PhaseBits(const v1::PriviRecKModel& model, int phase);
// diag(V) as doubles (with the DP option: the post-processed noisy degrees) and how many the
// model holds (m once phase 0 is applied, else 0).
Eigen::VectorXd ItemDegrees(const v1::PriviRecKModel& model);
int DegreeCount(const v1::PriviRecKModel& model);

// The orthonormal Q (m x k) of a QR of y (m x k, m >= k) by Householder, each column's sign
// chosen so that diag(T) >= 0 (Gram-Schmidt's convention), and that diag(T).
struct Orthonormalized {
  RowMatrix q;
  Eigen::VectorXd diagonal;
};
Orthonormalized Orthonormalize(const Eigen::Ref<const RowMatrix>& y);

// X_0: the Q of an m x k standard Gaussian matrix drawn from the run's seed (public).
RowMatrix StartBasis(const v1::PriviRecKConfig& config);

// User u's power-step rows A_u^T (A_u x) in real numbers, row t for its item items[t] (sorted,
// distinct, in [0, m)) of degree item_degrees[t]: A_uj = d_u^-1/2 V_j^-1/2 (d_u = items.size()),
// an item of degree 0 is unseen (A_uj = 0: the DP option's post-processed noisy degrees) and its
// row is 0. ||rows||_F = ||A_u|| ||A_u x|| <= ||A_u||^2 ||x||_2 = sum_(seen j) 1 / (d_u V_j) <= 1
// when x's columns are orthonormal and every seen degree is >= 1. InvalidArgument for a degree in
// (0, 1) or not finite.
absl::StatusOr<RowMatrix> PowerStep(absl::Span<const int32_t> items,
                                    absl::Span<const double> item_degrees,
                                    const Eigen::Ref<const RowMatrix>& x);

// User u's power-step contribution A_u^T (A_u x) for its sorted, distinct items (each in [0, m),
// of degree >= 1), in fixed point: the row-major coordinates j k + c of its items' rows
// (ascending) and their codes mod 2^PowerBits. InvalidArgument for an item of degree 0.
struct SparseCodes {
  std::vector<uint64_t> indices;
  std::vector<uint64_t> values;
};
absl::StatusOr<SparseCodes> PowerContribution(const v1::PriviRecKConfig& config,
                                              absl::Span<const int32_t> items,
                                              absl::Span<const int64_t> degrees,
                                              const Eigen::Ref<const RowMatrix>& x);

// Y (m x k) from a power phase's sum; OutOfRange for a coordinate outside [-n, n] (a malformed
// input: the users' sum cannot leave it), InvalidArgument for a sum of the wrong length.
absl::StatusOr<RowMatrix> DecodePowerSum(const v1::PriviRecKConfig& config,
                                         absl::Span<const uint64_t> sum);

// The final basis of `keep` <= x.cols() columns and their eigenvalue estimates from the last
// iterate `x` = X_(L-1) and `y` = P~ x (header comment: the paper's diag(T_L), or Rayleigh-Ritz,
// descending).
SingularBasis FinishBasis(const Eigen::Ref<const RowMatrix>& x,
                          const Eigen::Ref<const RowMatrix>& y, bool rayleigh_ritz, int keep);

// The basis and eigenvalues a round-1 model carries; InvalidArgument for a model without them.
absl::StatusOr<SingularBasis> ModelBasis(const v1::PriviRecKModel& model);

// The filter every client builds (graph_filter::BuildFilterFromBasis): the config's filter (empty:
// gf-cf) at its published settings, the ideal low-pass of low_pass_rank columns (0: k) weighted
// by gamma. NotFound for an unknown filter, InvalidArgument for Turbo-CF.
absl::StatusOr<graph_filter::GraphFilterConfig> FilterConfig(const v1::PriviRecKConfig& config);
// That filter from the item degrees and the final basis.
absl::StatusOr<std::shared_ptr<const graph_filter::ItemFilter>> BuildFilter(
    const v1::PriviRecKConfig& config, const Eigen::VectorXd& item_degrees, SingularBasis basis);

}  // namespace fedmf::algorithms::privirec_k

#endif  // FEDMF_COMMON_ALGORITHMS_PRIVIREC_K_PRIVIREC_K_H_
