// fedmf-compare-models: how far a model (e.g. a private run's, fedmf-sim --save_model) is from a
// reference model of the same users and items (e.g. the non-private run's, fedmf-central
// --save_model): the largest item-factor difference ||V - V_ref||_max (the local-DP MF paper's
// Fig. 2) and the top-N agreement of the two models' recommendations, the mean over users of the
// F-score of the two top-N sets (its Figs. 7-8). Prints one key=value line.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/mf/model_io.h"
#include "common/util/cli.h"
#include "common/util/event_log.h"

ABSL_FLAG(std::string, model, "", "the model to measure (fedmf.v1.FactorModel)");
ABSL_FLAG(std::string, reference, "",
          "the reference model, same users and items in the same order");
ABSL_FLAG(int, top_n, 10, "length of the recommendation lists compared");

namespace fedmf::compare {
namespace {

// The indices of the n largest scores, as a sorted list.
std::vector<int32_t> TopN(const Eigen::VectorXd& scores, int n) {
  std::vector<int32_t> order(static_cast<size_t>(scores.size()));
  std::iota(order.begin(), order.end(), 0);
  const auto end = order.begin() + std::min<int64_t>(n, scores.size());
  std::partial_sort(order.begin(), end, order.end(),
                    [&](int32_t a, int32_t b) { return scores[a] > scores[b]; });
  order.erase(end, order.end());
  std::sort(order.begin(), order.end());
  return order;
}

absl::Status Run() {
  absl::StatusOr<mf::ModelWithIds> model = mf::LoadModel(absl::GetFlag(FLAGS_model));
  if (!model.ok()) return model.status();
  absl::StatusOr<mf::ModelWithIds> reference = mf::LoadModel(absl::GetFlag(FLAGS_reference));
  if (!reference.ok()) return reference.status();
  if (model->user_ids != reference->user_ids || model->item_ids != reference->item_ids ||
      model->model.item_factors.cols() != reference->model.item_factors.cols()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--model and --reference differ in their users, items or rank: they are not two models "
        "of one dataset"));
  }
  const int n = absl::GetFlag(FLAGS_top_n);
  if (n < 1) return absl::InvalidArgumentError(absl::StrCat("--top_n=", n, " must be >= 1"));
  const mf::FactorModel& a = model->model;
  const mf::FactorModel& b = reference->model;
  double f_sum = 0;
  const int64_t users = a.user_factors.rows();
  for (int64_t u = 0; u < users; ++u) {
    const std::vector<int32_t> top_a = TopN(a.item_factors * a.user_factors.row(u).transpose(), n);
    const std::vector<int32_t> top_b = TopN(b.item_factors * b.user_factors.row(u).transpose(), n);
    std::vector<int32_t> both;
    std::set_intersection(top_a.begin(), top_a.end(), top_b.begin(), top_b.end(),
                          std::back_inserter(both));
    // Precision = recall = |A n B| / n for two lists of n: the F-score is the same.
    f_sum += static_cast<double>(both.size()) / static_cast<double>(top_a.size());
  }
  EventLine("model_distance")
      .Add("max_abs_item_diff", (a.item_factors - b.item_factors).cwiseAbs().maxCoeff())
      .Add("top_n", n)
      .Add("top_n_f_score", users > 0 ? f_sum / static_cast<double>(users) : 0)
      .Add("users", users);
  return absl::OkStatus();
}

}  // namespace
}  // namespace fedmf::compare

int main(int argc, char** argv) {
  fedmf::InitFlagsOnlyCommandLine(
      argc, argv,
      "fedmf-compare-models --model=PATH --reference=PATH [--top_n=10]: ||V - V_ref||_max and the "
      "mean F-score of the two models' top-N recommendation lists (factor model files from "
      "fedmf-sim or fedmf-central --save_model)");
  return fedmf::ExitCode(fedmf::compare::Run());
}
