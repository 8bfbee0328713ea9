#include "common/algorithms/lib/graph_filter/ode.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"

namespace fedmf::algorithms::graph_filter {

absl::StatusOr<OdeSolver> ParseOdeSolver(absl::string_view name) {
  if (name == "euler") return OdeSolver::kEuler;
  if (name == "rk4") return OdeSolver::kRk4;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown ODE solver '", name, "' (expected euler or rk4)"));
}

absl::string_view OdeSolverName(OdeSolver solver) {
  return solver == OdeSolver::kEuler ? "euler" : "rk4";
}

absl::Status ValidateOdeSpec(const OdeSpec& spec, absl::string_view what) {
  if (!(std::isfinite(spec.time) && spec.time > 0) || spec.steps < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": needs a time T > 0 and K >= 1 steps (T = ", spec.time, ", K = ", spec.steps, ")"));
  }
  return absl::OkStatus();
}

Block SolveLinearOde(const ItemFilter& filter, double a, double c, Block y0, const OdeSpec& spec,
                     const Block* initial_slope, Block* point_sum) {
  const auto slope = [&](const Block& y) {
    Block out = filter.Apply(y);
    out *= a;
    if (c != 0) out += c * y;
    return out;
  };
  const double h = spec.time / spec.steps;
  Block y = std::move(y0);
  for (int step = 0; step < spec.steps; ++step) {
    Block k1 = step == 0 && initial_slope != nullptr ? *initial_slope : slope(y);
    if (spec.solver == OdeSolver::kEuler) {
      y += h * k1;
    } else {
      const Block k2 = slope(y + (h / 3) * k1);
      const Block k3 = slope(y + h * (k2 - k1 / 3));
      const Block k4 = slope(y + h * (k1 - k2 + k3));
      y += (h / 8) * (k1 + 3 * (k2 + k3) + k4);
    }
    if (point_sum != nullptr) {
      if (point_sum->size() == 0) {
        *point_sum = y;
      } else {
        *point_sum += y;
      }
    }
  }
  return y;
}

}  // namespace fedmf::algorithms::graph_filter
