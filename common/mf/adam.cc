#include "common/mf/adam.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"

namespace fedmf::mf {

absl::Status ValidateAdamConfig(const AdamConfig& c) {
  const bool ok = std::isfinite(c.learning_rate) && c.learning_rate > 0 && c.beta1 >= 0 &&
                  c.beta1 < 1 && c.beta2 >= 0 && c.beta2 < 1 && std::isfinite(c.epsilon) &&
                  c.epsilon > 0;
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "Adam: need learning_rate > 0, beta1 and beta2 in [0, 1), epsilon > 0; got learning_rate=",
      c.learning_rate, " beta1=", c.beta1, " beta2=", c.beta2, " epsilon=", c.epsilon));
}

absl::StatusOr<Adam> Adam::Create(const AdamConfig& config, Eigen::Index rows, Eigen::Index cols) {
  if (rows < 0 || cols < 0) {
    return absl::InvalidArgumentError(absl::StrCat("Adam: shape ", rows, " x ", cols));
  }
  return Restore(config, Eigen::MatrixXd::Zero(rows, cols), Eigen::MatrixXd::Zero(rows, cols), 0);
}

absl::StatusOr<Adam> Adam::Restore(const AdamConfig& config, Eigen::MatrixXd first_moment,
                                   Eigen::MatrixXd second_moment, int64_t steps) {
  if (absl::Status s = ValidateAdamConfig(config); !s.ok()) return s;
  if (first_moment.rows() != second_moment.rows() || first_moment.cols() != second_moment.cols()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Adam: first moment is ", first_moment.rows(), " x ", first_moment.cols(),
                     " but second moment is ", second_moment.rows(), " x ", second_moment.cols()));
  }
  if (steps < 0 || !first_moment.allFinite() || !second_moment.allFinite() ||
      (second_moment.array() < 0).any()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Adam: need steps >= 0 (got ", steps,
                     "), finite moments and a non-negative second moment"));
  }
  return Adam(config, std::move(first_moment), std::move(second_moment), steps);
}

absl::Status Adam::Step(const Eigen::Ref<const Eigen::MatrixXd>& gradient,
                        Eigen::MatrixXd& params) {
  if (gradient.rows() != m_.rows() || gradient.cols() != m_.cols() || params.rows() != m_.rows() ||
      params.cols() != m_.cols()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Adam::Step: gradient ", gradient.rows(), " x ", gradient.cols(), " and parameters ",
        params.rows(), " x ", params.cols(), " must both be ", m_.rows(), " x ", m_.cols()));
  }
  if (!gradient.allFinite()) {
    return absl::InvalidArgumentError("Adam::Step: the gradient has a non-finite entry");
  }
  const AdamConfig& c = config_;
  ++steps_;
  m_ = c.beta1 * m_ + (1 - c.beta1) * gradient;
  v_ = c.beta2 * v_ + (1 - c.beta2) * gradient.cwiseAbs2();
  const double t = static_cast<double>(steps_);
  const double m_correction = 1 / (1 - std::pow(c.beta1, t));
  const double v_correction = 1 / (1 - std::pow(c.beta2, t));
  params.array() -= c.learning_rate * (m_correction * m_.array()) /
                    ((v_correction * v_.array()).sqrt() + c.epsilon);
  return absl::OkStatus();
}

}  // namespace fedmf::mf
