// Dense matrices in fedmf.v1.Matrix (row-major doubles, exact round trip), with the checks a
// matrix from the network or a file needs before use: the expected shape and finite entries.
#ifndef FEDMF_COMMON_ALGORITHMS_MATRIX_PROTO_H_
#define FEDMF_COMMON_ALGORITHMS_MATRIX_PROTO_H_

#include <cstdint>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "fedmf/v1/model.pb.h"

namespace fedmf::algorithms {

v1::Matrix MatrixToProto(const Eigen::Ref<const Eigen::MatrixXd>& matrix);

// InvalidArgument naming `name` unless `proto` is rows x cols with rows * cols finite values.
absl::StatusOr<Eigen::MatrixXd> MatrixFromProto(const v1::Matrix& proto, int64_t rows, int64_t cols,
                                                absl::string_view name);

}  // namespace fedmf::algorithms

#endif  // FEDMF_COMMON_ALGORITHMS_MATRIX_PROTO_H_
