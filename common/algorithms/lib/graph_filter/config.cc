#include "common/algorithms/lib/graph_filter/config.h"

#include <cmath>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace fedmf::algorithms::graph_filter {
namespace {

GraphFilterConfig GfCfDefaults() {
  GraphFilterConfig c;
  c.name = "gf-cf";
  c.model = FilterModel::kGfCf;
  c.alpha = 0.5;
  c.rank = 256;
  c.gamma = 0.3;
  return c;
}

GraphFilterConfig TurboCfDefaults() {
  GraphFilterConfig c;
  c.name = "turbo-cf";
  c.model = FilterModel::kTurboCf;
  c.alpha = 0.6;
  c.power = 0.7;
  c.polynomial = 1;
  return c;
}

GraphFilterConfig BspmDefaults(bool early_merge) {
  GraphFilterConfig c;
  c.name = early_merge ? "bspm-em" : "bspm-lm";
  c.model = FilterModel::kBspm;
  c.alpha = 0.5;
  c.rank = 448;
  c.bspm.ideal_weight = 0.2;
  c.bspm.ideal = {OdeSolver::kEuler, 1, 1};
  c.bspm.blur = {OdeSolver::kEuler, 1, 1};
  c.bspm.sharpen = {OdeSolver::kRk4, 2.5, 1};
  c.bspm.early_merge = early_merge;
  return c;
}

std::string Ode(const OdeSpec& spec) {
  return absl::StrCat(OdeSolverName(spec.solver), ",", spec.time, ",", spec.steps);
}

}  // namespace

const std::vector<std::string>& ModelNames() {
  static const std::vector<std::string> names = {"gf-cf", "turbo-cf", "bspm-lm", "bspm-em"};
  return names;
}

absl::StatusOr<GraphFilterConfig> PublishedConfig(absl::string_view name) {
  if (name == "gf-cf") return GfCfDefaults();
  if (name == "turbo-cf") return TurboCfDefaults();
  if (name == "bspm-lm") return BspmDefaults(/*early_merge=*/false);
  if (name == "bspm-em") return BspmDefaults(/*early_merge=*/true);
  return absl::NotFoundError(absl::StrCat("unknown graph filter '", name, "' (expected ",
                                          absl::StrJoin(ModelNames(), ", "), ")"));
}

bool UsesLowPass(const GraphFilterConfig& config) {
  switch (config.model) {
    case FilterModel::kGfCf:
      return config.gamma != 0;
    case FilterModel::kBspm:
      return config.bspm.ideal_weight != 0;
    case FilterModel::kTurboCf:
      return false;
  }
  return false;
}

absl::Status ValidateConfig(const GraphFilterConfig& c) {
  const auto bad = [&](absl::string_view problem) {
    return absl::InvalidArgumentError(absl::StrCat(c.name, ": ", problem));
  };
  if (!(c.alpha >= 0 && c.alpha <= 1))
    return bad(absl::StrCat("alpha = ", c.alpha, " not in [0, 1]"));
  if (UsesLowPass(c) && c.rank < 1) return bad(absl::StrCat("low-pass rank k = ", c.rank, " < 1"));
  if (!std::isfinite(c.gamma) || !std::isfinite(c.bspm.ideal_weight)) {
    return bad("the ideal low-pass weight must be finite");
  }
  if (c.gram_rank < 0) return bad(absl::StrCat("gram rank = ", c.gram_rank, " < 0"));
  if (c.model == FilterModel::kTurboCf) {
    if (c.gram_rank != 0) {
      return bad(
          absl::StrCat("gram rank = ", c.gram_rank,
                       ": Turbo-CF's entrywise power needs P~'s entries, not a low-rank P~"));
    }
    if (!(std::isfinite(c.power) && c.power > 0)) {
      return bad(absl::StrCat("power s = ", c.power, ": needs s > 0"));
    }
    if (c.polynomial < 1 || c.polynomial > 3) {
      return bad(absl::StrCat("polynomial filter ", c.polynomial, ": expected 1, 2 or 3"));
    }
  }
  if (c.model == FilterModel::kBspm) {
    if (absl::Status s = ValidateOdeSpec(c.bspm.ideal, "ideal low-pass ODE"); !s.ok())
      return bad(s.message());
    if (absl::Status s = ValidateOdeSpec(c.bspm.blur, "blurring ODE"); !s.ok())
      return bad(s.message());
    if (absl::Status s = ValidateOdeSpec(c.bspm.sharpen, "sharpening ODE"); !s.ok()) {
      return bad(s.message());
    }
  }
  return absl::OkStatus();
}

std::string DescribeConfig(const GraphFilterConfig& c) {
  const std::string gram_rank = c.gram_rank == 0 ? "" : absl::StrCat(" gram_rank=", c.gram_rank);
  switch (c.model) {
    case FilterModel::kGfCf:
      return absl::StrFormat("%s alpha=%g k=%d gamma=%g%s", c.name, c.alpha, c.rank, c.gamma,
                             gram_rank);
    case FilterModel::kTurboCf:
      return absl::StrFormat("%s alpha=%g s=%g polynomial=%d", c.name, c.alpha, c.power,
                             c.polynomial);
    case FilterModel::kBspm:
      return absl::StrFormat(
          "%s alpha=%g k=%d beta=%g ideal=%s blur=%s sharpen=%s merge=%s sharpening=%d "
          "point_combination=%d%s",
          c.name, c.alpha, c.rank, c.bspm.ideal_weight, Ode(c.bspm.ideal), Ode(c.bspm.blur),
          Ode(c.bspm.sharpen), c.bspm.early_merge ? "early" : "late", c.bspm.sharpening,
          c.bspm.point_combination, gram_rank);
  }
  return c.name;
}

absl::StatusOr<OdeSpec> ParseOdeSpec(absl::string_view text) {
  const std::vector<absl::string_view> parts = absl::StrSplit(text, ',');
  const auto bad = [&]() {
    return absl::InvalidArgumentError(
        absl::StrCat("ODE '", text, "': expected SOLVER,T,K (e.g. rk4,2.5,1)"));
  };
  if (parts.size() != 3) return bad();
  absl::StatusOr<OdeSolver> solver = ParseOdeSolver(parts[0]);
  if (!solver.ok()) return solver.status();
  OdeSpec spec;
  spec.solver = *solver;
  if (!absl::SimpleAtod(parts[1], &spec.time) || !absl::SimpleAtoi(parts[2], &spec.steps)) {
    return bad();
  }
  if (absl::Status s = ValidateOdeSpec(spec, absl::StrCat("ODE '", text, "'")); !s.ok()) return s;
  return spec;
}

}  // namespace fedmf::algorithms::graph_filter
