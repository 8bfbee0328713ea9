// Adam (Kingma & Ba 2015, Algorithm 1) over a dense matrix of parameters, the optimizer of the
// DPMF-RP server: per entry, m <- b1 m + (1 - b1) g, v <- b2 v + (1 - b2) g^2, and
// x <- x - lr * m_hat / (sqrt(v_hat) + eps) with the bias corrections m_hat = m / (1 - b1^t),
// v_hat = v / (1 - b2^t) at step t = 1, 2, ... The moments and the step count are the optimizer's
// whole state, exposed so a coordinator can persist and restore them.
#ifndef FEDMF_COMMON_MF_ADAM_H_
#define FEDMF_COMMON_MF_ADAM_H_

#include <cstdint>
#include <utility>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace fedmf::mf {

struct AdamConfig {
  double learning_rate = 0.05;  // gamma (DPMF-RP Section 6.1.3)
  double beta1 = 0.9;
  double beta2 = 0.8;
  double epsilon = 1e-8;
};

// OK iff learning_rate > 0, beta1 and beta2 in [0, 1), epsilon > 0, all finite.
absl::Status ValidateAdamConfig(const AdamConfig& config);

class Adam {
 public:
  // Zero moments for a rows x cols parameter matrix, step 0.
  static absl::StatusOr<Adam> Create(const AdamConfig& config, Eigen::Index rows,
                                     Eigen::Index cols);
  // Resumes from saved moments (same shape, finite, second moment >= 0) after `steps` >= 0 steps.
  static absl::StatusOr<Adam> Restore(const AdamConfig& config, Eigen::MatrixXd first_moment,
                                      Eigen::MatrixXd second_moment, int64_t steps);

  // One step on `params` with `gradient` (both of the moments' shape, gradient finite).
  absl::Status Step(const Eigen::Ref<const Eigen::MatrixXd>& gradient, Eigen::MatrixXd& params);

  const AdamConfig& config() const { return config_; }
  const Eigen::MatrixXd& first_moment() const { return m_; }
  const Eigen::MatrixXd& second_moment() const { return v_; }
  int64_t steps() const { return steps_; }

 private:
  Adam(const AdamConfig& config, Eigen::MatrixXd m, Eigen::MatrixXd v, int64_t steps)
      : config_(config), m_(std::move(m)), v_(std::move(v)), steps_(steps) {}

  AdamConfig config_;
  Eigen::MatrixXd m_;
  Eigen::MatrixXd v_;
  int64_t steps_;
};

}  // namespace fedmf::mf

#endif  // FEDMF_COMMON_MF_ADAM_H_
