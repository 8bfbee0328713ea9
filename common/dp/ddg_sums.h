// Several secure sums of one run, each released with the distributed discrete Gaussian
// (distributed_discrete_gaussian.h) over the same fixed population of n users, calibrated together
// so that all of them compose to one whole-run (epsilon, delta) per user (replace-one: one user's
// vector changes in each sum). Used by PriviRec's and PriviRec-k's DP options
// (docs/privacy-accounting.md sections 4.8 and 4.10).
//   gamma: one scale 2^j for every sum, the largest j <= max_scale_exponent whose sums all fit
//          max_bits (gamma c >> sqrt(d) / 2, so rounding barely inflates a sum's Delta_2).
//   z:     one noise multiplier: sum i gets the total std z Delta_2,i (grid units, Delta_2,i = 2
//          times its rounded L2 bound), at least sqrt(c) / 2 (v >= 1/4), the smallest z whose
//          composed KLS curves (rdp_ddg.h, one per sum, n_min = c) fit the budget. Every sum thus
//          takes the same share of the Gaussian RDP term.
// c is the number of noise parties: n (every user adds noise) or a noise committee of c <= n users
// (docs/privacy-accounting.md section 4.11). Every user adds its rounded vector, so the wrapping
// range counts n rounded vectors and c noise shares; the privacy bound only sees the c shares.
// A sum's noise std and the ledger's are the total std in the sum's real units (grid std / gamma).
#ifndef FEDMF_COMMON_DP_DDG_SUMS_H_
#define FEDMF_COMMON_DP_DDG_SUMS_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "common/dp/distributed_discrete_gaussian.h"
#include "common/dp/dp_conversion.h"
#include "common/dp/privacy_ledger.h"

namespace fedmf::dp {

// Who is in every sum: all `users` add their rounded vectors, `noise_parties` of them (1..users;
// users: every one) add the noise.
struct DdgPopulation {
  int64_t users = 0;
  int64_t noise_parties = 0;
};

// One sum: what a user's real vector is bounded by before scaling.
struct DdgSum {
  int64_t dim = 0;        // coordinates (every one carries noise in a noise party's vector)
  double clip_norm = 0;   // L2 bound (the mechanism clips to it)
  double linf_bound = 0;  // coordinate bound
};

// A sum's calibration: gamma and the total noise std in real units.
struct DdgSumNoise {
  double scale = 0;
  double noise_std = 0;
};

// The mechanism of `sum` for the population, every user in the sum (n_min = n_max = users, the
// noise from noise_parties of them).
absl::StatusOr<DistributedDiscreteGaussian> SumDdg(const DdgSum& sum, const DdgSumNoise& noise,
                                                   const DdgPopulation& population);

// gamma and the noise of every sum (header), in the order of `sums`. InvalidArgument prefixed by
// `who` when no gamma fits max_bits, or from the search when no z fits the budget.
absl::StatusOr<std::vector<DdgSumNoise>> CalibrateDdgSums(absl::Span<const DdgSum> sums,
                                                          const DdgPopulation& population,
                                                          const PrivacyBudget& budget, int max_bits,
                                                          int max_scale_exponent,
                                                          absl::string_view who);

// The ledger entry of one sum's release: mechanism "ddg", round 0, user-level, n_min = the noise
// parties (the honest noise adders KLS's bound counts), params phase, noise_std, scale,
// l2_sensitivity (grid units), dimension, bits and noise_parties.
absl::StatusOr<LedgerEntry> DdgSumLedgerEntry(const DdgSum& sum, const DdgSumNoise& noise,
                                              const DdgPopulation& population, int phase,
                                              int64_t participants,
                                              const std::vector<double>& orders);

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_DDG_SUMS_H_
