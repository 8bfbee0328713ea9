// The fixed-grid ODE solvers BSPM runs its blurring, ideal low-pass and sharpening processes with
// (its reference code: torchdiffeq's odeint on t = linspace(0, T, K + 1)), for the linear ODEs
// dy/dt = a F^T y + c y on blocks of users' item vectors (each column one user).
#ifndef FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_ODE_H_
#define FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_ODE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/algorithms/lib/graph_filter/item_filter.h"

namespace fedmf::algorithms::graph_filter {

// kRk4 is torchdiffeq's "rk4": the 3/8-rule Runge-Kutta method (rk4_alt_step_func). On these
// linear ODEs every 4-stage 4th-order method gives the same step, y <- sum_{j<=4} (hA)^j / j! y.
enum class OdeSolver { kEuler, kRk4 };

struct OdeSpec {
  OdeSolver solver = OdeSolver::kEuler;
  double time = 1;  // T > 0
  int steps = 1;    // K >= 1 equal steps of T / K
};

// "euler" or "rk4" (torchdiffeq's names).
absl::StatusOr<OdeSolver> ParseOdeSolver(absl::string_view name);
absl::string_view OdeSolverName(OdeSolver solver);
// InvalidArgument naming `what` unless T > 0 (finite) and K >= 1.
absl::Status ValidateOdeSpec(const OdeSpec& spec, absl::string_view what);

// Solves dy/dt = a F^T y + c y (F = `filter`) from y(0) = y0 over [0, T] in K steps and returns
// y(T). `initial_slope`, if not null, is the slope at y0 (a caller may have it cheaply from sparse
// user rows). If `point_sum` is not null, y(t_1) + ... + y(t_K) is added to it (an empty block
// counts as zero).
Block SolveLinearOde(const ItemFilter& filter, double a, double c, Block y0, const OdeSpec& spec,
                     const Block* initial_slope, Block* point_sum);

}  // namespace fedmf::algorithms::graph_filter

#endif  // FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_ODE_H_
