#include "common/algorithms/probe/probe.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace fedmf::algorithms::probe {
namespace {

constexpr absl::string_view kCounterPrefix = "probe-v1:";

absl::Status Bad(absl::string_view field, double value, absl::string_view need) {
  return absl::InvalidArgumentError(
      absl::StrCat("probe config: ", field, "=", value, ", need ", need));
}

}  // namespace

absl::Status ValidateConfig(const v1::ProbeConfig& c) {
  if (c.num_items() < 2) return Bad("num_items", c.num_items(), ">= 2");
  if (c.num_users() < 1) return Bad("num_users", static_cast<double>(c.num_users()), ">= 1");
  if (c.rounds() < 1) return Bad("rounds", static_cast<double>(c.rounds()), ">= 1");
  if (c.cohort_size() < 1 || c.cohort_size() > c.num_users()) {
    return Bad("cohort_size", static_cast<double>(c.cohort_size()), "in [1, num_users]");
  }
  if (c.min_contributors() < 1 || c.min_contributors() > c.cohort_size()) {
    return Bad("min_contributors", static_cast<double>(c.min_contributors()),
               "in [1, cohort_size]");
  }
  if (!std::isfinite(c.report_epsilon()) || c.report_epsilon() <= 0) {
    return Bad("report_epsilon", c.report_epsilon(), "> 0");
  }
  if (!std::isfinite(c.budget_epsilon()) || c.budget_epsilon() < 0) {
    return Bad("budget_epsilon", c.budget_epsilon(), ">= 0 (0: none)");
  }
  return absl::OkStatus();
}

dp::LedgerEntry ReportRelease(const v1::ProbeConfig& config, int64_t round, int64_t participants) {
  dp::LedgerEntry entry;
  entry.round = round;
  entry.mechanism = "k-rr";
  entry.params = {{"epsilon", config.report_epsilon()},
                  {"items", static_cast<double>(config.num_items())}};
  entry.participants = participants;
  entry.n_min = 1;  // local DP: no other participant's honesty is needed
  entry.unit = dp::PrivacyUnit::kUser;
  entry.pure_epsilon = config.report_epsilon();
  return entry;
}

std::string EncodeCounter(int64_t count) { return absl::StrCat(kCounterPrefix, count); }

absl::StatusOr<int64_t> DecodeCounter(absl::string_view state) {
  if (state.empty()) return 0;
  int64_t count = 0;
  if (!absl::ConsumePrefix(&state, kCounterPrefix) || !absl::SimpleAtoi(state, &count) ||
      count < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("probe participant state '", state, "' is not probe-v1:<count>"));
  }
  return count;
}

}  // namespace fedmf::algorithms::probe
