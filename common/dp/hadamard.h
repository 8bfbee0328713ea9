// Randomized Hadamard flattening, DPMF-RP Appendix B (Algorithm 3 FlatMat, Algorithm 4 RevMat):
// pad the p rows of B to p' = the next power of two, flip row i by xi_i in {-1, +1} (D_xi, from a
// public per-round seed), and apply the orthonormal Walsh-Hadamard matrix H (entries +/-1/sqrt(p'),
// H = H^T = H^{-1}) to every column with the fast transform, O(p' log p') per column. Reverse is
// the exact inverse D_xi H followed by dropping the padding rows.
//
// Infinity-norm guarantee (deterministic): every entry of Flatten(B) is a +/- sum of the entries
// of one column of B divided by sqrt(p'), so |Flatten(B)_ij| <= ||B_{:,j}||_1 / sqrt(p') <=
// ||B||_{1,1} / sqrt(p'); this is the PBM clip Delta_1 / sqrt(p') of DPMF-RP Algorithm 2.
#ifndef FEDMF_COMMON_DP_HADAMARD_H_
#define FEDMF_COMMON_DP_HADAMARD_H_

#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace fedmf::dp {

// Smallest power of two >= n (n >= 1, n <= 2^62).
int64_t NextPowerOfTwo(int64_t n);

// l1_bound / sqrt(padded_rows): the bound above on every entry of Flatten(B) when
// ||B||_{1,1} <= l1_bound; the PBM clip c for DPMF-RP with l1_bound = Delta_1.
double FlattenedLinfBound(double l1_bound, int64_t padded_rows);

// In-place orthonormal Walsh-Hadamard transform (Sylvester order) of a power-of-two-length span:
// data <- H data with H_ij = (-1)^popcount(i & j) / sqrt(n). Error if the length is not a power
// of 2.
absl::Status FastWalshHadamard(absl::Span<double> data);

class RandomizedHadamard {
 public:
  // rows = p >= 1; signs xi_i from SplitMix64 keyed DeriveStreamKey(seed, kTagHadamardSign).
  static absl::StatusOr<RandomizedHadamard> Create(int64_t rows, uint64_t seed);

  int64_t rows() const { return rows_; }                                      // p
  int64_t padded_rows() const { return static_cast<int64_t>(sign_.size()); }  // p'
  int sign(int64_t i) const { return sign_[i] > 0 ? 1 : -1; }                 // xi_i

  // FlatMat: p x k -> p' x k, H D_xi [B; 0].
  absl::StatusOr<Eigen::MatrixXd> Flatten(const Eigen::Ref<const Eigen::MatrixXd>& b) const;
  // RevMat: p' x k -> p x k, the first p rows of D_xi H^T B~.
  absl::StatusOr<Eigen::MatrixXd> Reverse(const Eigen::Ref<const Eigen::MatrixXd>& flat) const;

 private:
  RandomizedHadamard(int64_t rows, std::vector<double> sign);

  int64_t rows_;
  std::vector<double> sign_;  // +1.0 / -1.0, length p'
};

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_HADAMARD_H_
