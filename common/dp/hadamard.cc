#include "common/dp/hadamard.h"

#include <bit>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/dp/hashing.h"

namespace fedmf::dp {
namespace {

// Unnormalized butterflies then one scaling by 1/sqrt(n) (exact when n is a power of 4).
void Transform(double* data, int64_t n) {
  for (int64_t half = 1; half < n; half *= 2) {
    for (int64_t start = 0; start < n; start += 2 * half) {
      for (int64_t i = start; i < start + half; ++i) {
        const double a = data[i];
        const double b = data[i + half];
        data[i] = a + b;
        data[i + half] = a - b;
      }
    }
  }
  const double scale = 1 / std::sqrt(static_cast<double>(n));
  for (int64_t i = 0; i < n; ++i) data[i] *= scale;
}

}  // namespace

int64_t NextPowerOfTwo(int64_t n) {
  return static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(n < 1 ? 1 : n)));
}

double FlattenedLinfBound(double l1_bound, int64_t padded_rows) {
  return l1_bound / std::sqrt(static_cast<double>(padded_rows));
}

absl::Status FastWalshHadamard(absl::Span<double> data) {
  if (data.empty() || !std::has_single_bit(data.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("FastWalshHadamard: length ", data.size(), " is not a power of two"));
  }
  Transform(data.data(), static_cast<int64_t>(data.size()));
  return absl::OkStatus();
}

absl::StatusOr<RandomizedHadamard> RandomizedHadamard::Create(int64_t rows, uint64_t seed) {
  if (rows < 1 || rows > (int64_t{1} << 40)) {
    return absl::InvalidArgumentError(
        absl::StrCat("RandomizedHadamard: rows=", rows, " must be in [1, 2^40]"));
  }
  const int64_t padded = NextPowerOfTwo(rows);
  const uint64_t key = DeriveStreamKey(seed, kTagHadamardSign);
  std::vector<double> sign(padded);
  for (int64_t i = 0; i < padded; ++i) {
    sign[i] = SignFromBits(SplitMix64At(key, static_cast<uint64_t>(i)));
  }
  return RandomizedHadamard(rows, std::move(sign));
}

RandomizedHadamard::RandomizedHadamard(int64_t rows, std::vector<double> sign)
    : rows_(rows), sign_(std::move(sign)) {}

absl::StatusOr<Eigen::MatrixXd> RandomizedHadamard::Flatten(
    const Eigen::Ref<const Eigen::MatrixXd>& b) const {
  if (b.rows() != rows_) {
    return absl::InvalidArgumentError(absl::StrCat("RandomizedHadamard::Flatten: input has ",
                                                   b.rows(), " rows, expected p=", rows_));
  }
  const int64_t padded = padded_rows();
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(padded, b.cols());
  for (Eigen::Index c = 0; c < b.cols(); ++c) {
    double* o = out.col(c).data();
    const double* in = b.col(c).data();
    for (int64_t i = 0; i < rows_; ++i) o[i] = sign_[i] * in[i];
    Transform(o, padded);
  }
  return out;
}

absl::StatusOr<Eigen::MatrixXd> RandomizedHadamard::Reverse(
    const Eigen::Ref<const Eigen::MatrixXd>& flat) const {
  const int64_t padded = padded_rows();
  if (flat.rows() != padded) {
    return absl::InvalidArgumentError(absl::StrCat("RandomizedHadamard::Reverse: input has ",
                                                   flat.rows(), " rows, expected p'=", padded));
  }
  Eigen::MatrixXd work = flat;
  for (Eigen::Index c = 0; c < work.cols(); ++c) {
    double* w = work.col(c).data();
    Transform(w, padded);  // H^T = H
    for (int64_t i = 0; i < rows_; ++i) w[i] *= sign_[i];
  }
  return Eigen::MatrixXd(work.topRows(rows_));
}

}  // namespace fedmf::dp
