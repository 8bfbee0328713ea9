// A graph-filter model and its hyper-parameters, with each model's published defaults for
// Gowalla (models.h has the scoring rules; docs/results/privirec.md says where each value comes
// from):
//   gf-cf     alpha 1/2, k 256, gamma 0.3                          (GF-CF's model.py)
//   turbo-cf  alpha 0.6, s 0.7, polynomial 1                       (Turbo-CF's README, Gowalla)
//   bspm-em   alpha 1/2, k 448, beta 0.2, ideal and blurring Euler (T = 1, K = 1), sharpening rk4
//             (T_s = 2.5, K_s = 1), early merge                    (BSPM's README, Gowalla)
//   bspm-lm   as bspm-em with late merge (BSPM's README gives no late-merge command for Gowalla;
//             these settings reproduce the published BSPM-LM: privirec.md)
#ifndef FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_CONFIG_H_
#define FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/algorithms/lib/graph_filter/models.h"

namespace fedmf::algorithms::graph_filter {

enum class FilterModel { kGfCf, kTurboCf, kBspm };

struct GraphFilterConfig {
  std::string name;  // the published configuration it started from, e.g. "bspm-em"
  FilterModel model = FilterModel::kGfCf;
  double alpha = 0.5;  // R~ = U^-alpha R V^(alpha-1)
  int64_t rank = 256;  // k of the ideal low-pass (GF-CF, BSPM)
  // GF-CF, BSPM: 0 uses P~ itself; r >= 1 its rank-r stand-in S_r Lambda_r S_r^T (low_rank_gram.h)
  // from P~'s top-r eigenvectors, what PriviRec-k's clients hold in place of P~.
  int64_t gram_rank = 0;
  double gamma = 0.3;  // GF-CF's weight of the ideal low-pass (BSPM's: bspm.ideal_weight)
  double power = 1;    // Turbo-CF's s
  int polynomial = 1;  // Turbo-CF's filter: 1, 2 or 3
  BspmConfig bspm;
};

// The names PublishedConfig knows, in a fixed order.
const std::vector<std::string>& ModelNames();
// NotFound for an unknown name (the message lists the known ones).
absl::StatusOr<GraphFilterConfig> PublishedConfig(absl::string_view name);
// InvalidArgument naming the first bad field.
absl::Status ValidateConfig(const GraphFilterConfig& config);
// One line: "bspm-em alpha=0.5 k=448 beta=0.2 ideal=euler,1,1 ...".
std::string DescribeConfig(const GraphFilterConfig& config);
// Whether the model needs the ideal low-pass (and so the singular vectors).
bool UsesLowPass(const GraphFilterConfig& config);

// "SOLVER,T,K", e.g. "rk4,2.5,1", as the ODE flags of fedmf-central take them.
absl::StatusOr<OdeSpec> ParseOdeSpec(absl::string_view text);

}  // namespace fedmf::algorithms::graph_filter

#endif  // FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_CONFIG_H_
