// Test support: a small clear-upload plan (COMBINATION_CLEAR), for tests of the coordinator's
// parts that need an Aggregation but no SecAgg.
#ifndef FEDMF_TESTS_UNIT_SERVER_CLEAR_PLAN_H_
#define FEDMF_TESTS_UNIT_SERVER_CLEAR_PLAN_H_

#include <cstdint>

#include "fedmf/v1/federation.pb.h"

namespace fedmf::server::testing {

// Phase 0 of `round`: `length` values of 8 bits summed mod 2^16, by n_min..n_max contributors.
inline v1::RoundPlan ClearPlan(int64_t round, int64_t n_min, int64_t n_max, int64_t length = 3) {
  v1::RoundPlan plan;
  plan.set_round(round);
  plan.set_length(length);
  plan.set_bits(16);
  plan.set_client_bits(8);
  plan.set_min_contributors(n_min);
  plan.set_max_contributors(n_max);
  plan.set_combination(v1::COMBINATION_CLEAR);
  return plan;
}

}  // namespace fedmf::server::testing

#endif  // FEDMF_TESTS_UNIT_SERVER_CLEAR_PLAN_H_
