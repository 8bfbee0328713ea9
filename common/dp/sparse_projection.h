// SparseProjection: the p x m matrix S of DPMF-RP Definition 3.5, S_ij = sigma(j) [h(j) = i] (one
// +/-1 per column), defined by a public 64-bit seed so clients and server agree on it:
//   h(j)     = floor(p * w_j / 2^64), w_j output j of SplitMix64 keyed DeriveStreamKey(seed,
//   bucket) sigma(j) = sign of the top bit of output j of SplitMix64 keyed DeriveStreamKey(seed,
//   sign)
// Apply (S X, m x k -> p x k) and ApplyTranspose (S^T Y, p x k -> m x k) run in O(mk); only h and
// sigma are stored (O(m)), never S. Matrices are Eigen column-major; every loop walks columns.
#ifndef FEDMF_COMMON_DP_SPARSE_PROJECTION_H_
#define FEDMF_COMMON_DP_SPARSE_PROJECTION_H_

#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"

namespace fedmf::dp {

class SparseProjection {
 public:
  // 1 <= output_dim, 1 <= input_dim, both < 2^31.
  static absl::StatusOr<SparseProjection> Create(int64_t input_dim, int64_t output_dim,
                                                 uint64_t seed);

  int64_t input_dim() const { return static_cast<int64_t>(bucket_.size()); }  // m
  int64_t output_dim() const { return output_dim_; }                          // p
  uint64_t seed() const { return seed_; }
  int64_t bucket(int64_t j) const { return bucket_[j]; }  // h(j), 0-based
  int sign(int64_t j) const { return sign_[j] > 0 ? 1 : -1; }

  // S X for X with input_dim() rows. Error on a row mismatch (X may come from the network).
  absl::StatusOr<Eigen::MatrixXd> Apply(const Eigen::Ref<const Eigen::MatrixXd>& x) const;
  // S^T Y for Y with output_dim() rows.
  absl::StatusOr<Eigen::MatrixXd> ApplyTranspose(const Eigen::Ref<const Eigen::MatrixXd>& y) const;

 private:
  SparseProjection(int64_t output_dim, uint64_t seed, std::vector<int32_t> bucket,
                   std::vector<double> sign);

  int64_t output_dim_;
  uint64_t seed_;
  std::vector<int32_t> bucket_;
  std::vector<double> sign_;  // +1.0 / -1.0, stored as double for the inner loops
};

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_SPARSE_PROJECTION_H_
