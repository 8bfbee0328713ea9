// Test helper: a small lfl-sgdmf configuration (rank 2, R = 5, every fixed-point and scoring
// field set, T = 5 rounds) for the algorithm's tests and the client host's; a noisy one has its
// noise_std fixed to `sigma` (no calibration) and a budget of (2, 1e-5).
#ifndef FEDMF_TESTS_UNIT_ALGORITHMS_LFL_SGDMF_TEST_CONFIG_H_
#define FEDMF_TESTS_UNIT_ALGORITHMS_LFL_SGDMF_TEST_CONFIG_H_

#include <cstdint>

#include "common/algorithms/lfl_sgdmf/lfl_sgdmf.h"
#include "fedmf/v1/lfl_sgdmf.pb.h"

namespace fedmf::algorithms::lfl_sgdmf::testing {

inline v1::LflSgdmfConfig SmallConfig(v1::LflNoiseMode noise, int64_t num_users, int32_t num_items,
                                      int64_t cohort, double omega, double sigma) {
  v1::LflSgdmfConfig c;
  c.set_num_users(num_users);
  c.set_num_items(num_items);
  c.set_rank(2);
  c.set_rating_max(5);
  c.set_rounds(5);
  c.set_cohort_size(cohort);
  c.set_omega(omega);
  c.set_min_contributors(MinContributors(cohort, omega));
  c.set_noise(noise);
  if (noise != v1::LFL_NOISE_NONE) {
    c.set_epsilon(2);
    c.set_delta(1e-5);
    c.set_noise_std(sigma);
  }
  c.set_learning_rate(0.5);
  c.set_pretrain_epochs(5);
  c.set_pretrain_learning_rate(0.05);
  c.set_seed(11);
  c.set_init_prediction(3);
  c.set_scale(1 << 20);
  c.set_wrap_probability(1e-9);
  c.set_score_lambda(0.25);
  c.set_score_kappa(5);
  return c;
}

}  // namespace fedmf::algorithms::lfl_sgdmf::testing

#endif  // FEDMF_TESTS_UNIT_ALGORITHMS_LFL_SGDMF_TEST_CONFIG_H_
