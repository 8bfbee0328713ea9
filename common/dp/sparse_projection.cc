#include "common/dp/sparse_projection.h"

#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/dp/hashing.h"

namespace fedmf::dp {

absl::StatusOr<SparseProjection> SparseProjection::Create(int64_t input_dim, int64_t output_dim,
                                                          uint64_t seed) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (input_dim < 1 || input_dim > kMax || output_dim < 1 || output_dim > kMax) {
    return absl::InvalidArgumentError(absl::StrCat("SparseProjection: dimensions m=", input_dim,
                                                   ", p=", output_dim, " must be in [1, 2^31)"));
  }
  const uint64_t bucket_key = DeriveStreamKey(seed, kTagProjectionBucket);
  const uint64_t sign_key = DeriveStreamKey(seed, kTagProjectionSign);
  std::vector<int32_t> bucket(input_dim);
  std::vector<double> sign(input_dim);
  for (int64_t j = 0; j < input_dim; ++j) {
    const uint64_t u = static_cast<uint64_t>(j);
    bucket[j] = static_cast<int32_t>(
        ReduceToRange(SplitMix64At(bucket_key, u), static_cast<uint64_t>(output_dim)));
    sign[j] = SignFromBits(SplitMix64At(sign_key, u));
  }
  return SparseProjection(output_dim, seed, std::move(bucket), std::move(sign));
}

SparseProjection::SparseProjection(int64_t output_dim, uint64_t seed, std::vector<int32_t> bucket,
                                   std::vector<double> sign)
    : output_dim_(output_dim), seed_(seed), bucket_(std::move(bucket)), sign_(std::move(sign)) {}

absl::StatusOr<Eigen::MatrixXd> SparseProjection::Apply(
    const Eigen::Ref<const Eigen::MatrixXd>& x) const {
  if (x.rows() != input_dim()) {
    return absl::InvalidArgumentError(absl::StrCat("SparseProjection::Apply: input has ", x.rows(),
                                                   " rows, expected m=", input_dim()));
  }
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(output_dim_, x.cols());
  const int64_t m = input_dim();
  for (Eigen::Index c = 0; c < x.cols(); ++c) {
    const double* in = x.col(c).data();  // columns are contiguous (inner stride 1)
    double* o = out.col(c).data();
    for (int64_t j = 0; j < m; ++j) o[bucket_[j]] += sign_[j] * in[j];
  }
  return out;
}

absl::StatusOr<Eigen::MatrixXd> SparseProjection::ApplyTranspose(
    const Eigen::Ref<const Eigen::MatrixXd>& y) const {
  if (y.rows() != output_dim_) {
    return absl::InvalidArgumentError(absl::StrCat("SparseProjection::ApplyTranspose: input has ",
                                                   y.rows(), " rows, expected p=", output_dim_));
  }
  const int64_t m = input_dim();
  Eigen::MatrixXd out(m, y.cols());
  for (Eigen::Index c = 0; c < y.cols(); ++c) {
    const double* in = y.col(c).data();
    double* o = out.col(c).data();
    for (int64_t j = 0; j < m; ++j) o[j] = sign_[j] * in[bucket_[j]];
  }
  return out;
}

}  // namespace fedmf::dp
