#include "tools/central/central_report.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace fedmf::central {
namespace {

struct Row {
  std::string name;
  std::function<double(const FoldResult&)> value;
  bool rating_error = false;  // left out when the model predicts no ratings
};

std::string DescribeModel(const TrainerConfig& c) {
  if (IsGraphFilter(c.model)) return algorithms::graph_filter::DescribeConfig(c.graph_filter);
  if (c.model == "central-mf") {
    return absl::StrFormat("central-mf rank=%d lambda=%g mu=%g kappa=%g iterations=%d",
                           c.central.rank, c.central.lambda, c.central.mu, c.central.kappa,
                           c.central.iterations);
  }
  if (c.model == "ldp-gd") {
    return absl::StrFormat(
        "ldp-gd (non-private GD) rank=%d iterations=%d learning_rate=%g "
        "lambda=%g init_scale=%g",
        c.gd.rank(), c.gd.rounds(), c.gd.learning_rate(), c.gd.lambda_u(), c.gd.init_scale());
  }
  if (c.model == "dp-sgdmf") {
    const algorithms::fmf_sgd::DpSgdMfConfig& d = c.sgdmf;
    return absl::StrFormat(
        "dp-sgdmf rank=%d unit=%s theta=%d clip=%s C=%g R=%g eta=%g steps=%d item_steps=%d "
        "learning_rate=%g epsilon=%g delta=%g",
        d.rank, dp::PrivacyUnitName(d.unit), d.max_ratings_per_user,
        algorithms::fmf_sgd::ClipModeName(d.clip), d.gradient_clip, d.rating_max, d.sampling_rate,
        d.steps, d.item_only_steps, d.learning_rate, c.sgdmf_epsilon, c.sgdmf_delta);
  }
  if (c.model != "als") return c.model;  // a baseline without factors
  return absl::StrFormat("als rank=%d lambda=%g iterations=%d biases=%d", c.als.rank, c.als.lambda,
                         c.als.iterations, c.als.biases);
}

}  // namespace

void PrintSummary(const TrainerConfig& config, const std::string& data, const std::string& split,
                  const std::vector<FoldResult>& folds, std::FILE* out) {
  const bool rating_errors =
      std::any_of(folds.begin(), folds.end(), [](const FoldResult& f) { return f.rating_errors; });
  const int n = config.ranking.top_n;
  const int long_n = config.long_ranking.top_n;
  const std::vector<Row> rows = {
      {"RMSE", [](const FoldResult& f) { return f.errors.rmse; }, true},
      {"MAE", [](const FoldResult& f) { return f.errors.mae; }, true},
      {"per-user RMSE (eq. 52)", [](const FoldResult& f) { return f.errors.per_user_rmse; }, true},
      {absl::StrCat("Precision@", n), [](const FoldResult& f) { return f.ranking.precision; }},
      {absl::StrCat("Recall@", n), [](const FoldResult& f) { return f.ranking.recall; }},
      {absl::StrCat("F1@", n), [](const FoldResult& f) { return f.ranking.f1; }},
      {absl::StrCat("mAP@", n, " (eq. 56, 1/tp)"),
       [](const FoldResult& f) { return f.ranking.map; }},
      {absl::StrCat("mAP@", n, " (1/min(N, relevant))"),
       [](const FoldResult& f) { return f.ranking.map_at_n; }},
      {absl::StrCat("Recall@", long_n), [](const FoldResult& f) { return f.long_ranking.recall; }},
      {absl::StrCat("NDCG@", long_n), [](const FoldResult& f) { return f.long_ranking.ndcg; }},
      {"train seconds", [](const FoldResult& f) { return f.train_seconds; }},
      {"evaluate seconds", [](const FoldResult& f) { return f.evaluate_seconds; }},
  };

  absl::FPrintF(out, "\nmodel: %s\ndata: %s   split: %s   relevance threshold: %g\n",
                DescribeModel(config), data, split, config.ranking.relevance_threshold);
  if (!rating_errors) absl::FPrintF(out, "rating errors: absent (the model predicts no ratings)\n");
  absl::FPrintF(out, "\n");
  std::string header = "| metric | mean | std |";
  std::string rule = "|---|---|---|";
  for (const FoldResult& f : folds) {
    absl::StrAppend(&header, " fold ", f.fold, " |");
    absl::StrAppend(&rule, "---|");
  }
  absl::FPrintF(out, "%s\n%s\n", header, rule);
  for (const Row& row : rows) {
    if (row.rating_error && !rating_errors) continue;
    double sum = 0;
    for (const FoldResult& f : folds) sum += row.value(f);
    const double mean = folds.empty() ? 0 : sum / static_cast<double>(folds.size());
    double ss = 0;
    for (const FoldResult& f : folds) ss += (row.value(f) - mean) * (row.value(f) - mean);
    const double std = folds.size() > 1 ? std::sqrt(ss / static_cast<double>(folds.size() - 1)) : 0;
    std::string line = absl::StrFormat("| %s | %.4f | %.4f |", row.name, mean, std);
    for (const FoldResult& f : folds)
      absl::StrAppend(&line, absl::StrFormat(" %.4f |", row.value(f)));
    absl::FPrintF(out, "%s\n", line);
  }
}

}  // namespace fedmf::central
