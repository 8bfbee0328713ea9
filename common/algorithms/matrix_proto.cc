#include "common/algorithms/matrix_proto.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace fedmf::algorithms {

v1::Matrix MatrixToProto(const Eigen::Ref<const Eigen::MatrixXd>& matrix) {
  v1::Matrix proto;
  proto.set_rows(static_cast<uint32_t>(matrix.rows()));
  proto.set_cols(static_cast<uint32_t>(matrix.cols()));
  proto.mutable_values()->Reserve(static_cast<int>(matrix.size()));
  for (Eigen::Index r = 0; r < matrix.rows(); ++r) {
    for (Eigen::Index c = 0; c < matrix.cols(); ++c) proto.add_values(matrix(r, c));
  }
  return proto;
}

absl::StatusOr<Eigen::MatrixXd> MatrixFromProto(const v1::Matrix& proto, int64_t rows, int64_t cols,
                                                absl::string_view name) {
  if (proto.rows() != rows || proto.cols() != cols ||
      static_cast<int64_t>(proto.values_size()) != rows * cols) {
    return absl::InvalidArgumentError(absl::StrCat(name, " is ", proto.rows(), " x ", proto.cols(),
                                                   " with ", proto.values_size(),
                                                   " values; expected ", rows, " x ", cols));
  }
  Eigen::MatrixXd out(rows, cols);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const double value = proto.values(static_cast<int>(r * cols + c));
      if (!std::isfinite(value)) {
        return absl::InvalidArgumentError(
            absl::StrCat(name, "(", r, ", ", c, ") = ", value, " is not finite"));
      }
      out(r, c) = value;
    }
  }
  return out;
}

}  // namespace fedmf::algorithms
