#include "common/algorithms/privirec/updater.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/algorithms/plan_payload.h"
#include "common/algorithms/privirec/noise.h"
#include "common/algorithms/privirec/privirec.h"

namespace fedmf::algorithms::privirec {
namespace {

absl::Status BadState(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("privirec state: ", what));
}

}  // namespace

absl::StatusOr<std::unique_ptr<PriviRecUpdater>> PriviRecUpdater::Create(
    v1::PriviRecConfig config) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  v1::PriviRecModel model;
  if (Noisy(config)) {
    absl::StatusOr<v1::PriviRecNoise> noise = CalibrateNoise(config);
    if (!noise.ok()) return noise.status();
    *model.mutable_noise() = *std::move(noise);
  }
  *model.mutable_config() = std::move(config);
  return std::unique_ptr<PriviRecUpdater>(new PriviRecUpdater(std::move(model)));
}

absl::StatusOr<std::unique_ptr<PriviRecUpdater>> PriviRecUpdater::Restore(absl::string_view bytes) {
  v1::PriviRecModel model;
  if (!model.ParseFromString(std::string(bytes))) return BadState("not a fedmf.v1.PriviRecModel");
  if (absl::Status s = ValidateConfig(model.config()); !s.ok()) return s;
  const int32_t m = model.config().num_items();
  const bool summing = model.round() == 0;
  if (model.round() != 0 && model.round() != 1) {
    return BadState(absl::StrCat("round ", model.round()));
  }
  if (summing && model.phase() != kDegreePhase && model.phase() != kGramPhase) {
    return BadState(absl::StrCat("phase ", model.phase()));
  }
  if (Noisy(model.config())) {
    for (int phase : {kDegreePhase, kGramPhase}) {
      if (absl::StatusOr<int> bits = PhaseBits(model, phase); !bits.ok()) return bits.status();
    }
  }
  const bool has_degrees = !summing || model.phase() == kGramPhase;
  if (DegreeCount(model) != (has_degrees ? m : 0)) {
    return BadState(absl::StrCat(DegreeCount(model), " degrees"));
  }
  if (summing && model.gram_index_size() != 0) return BadState("a Gram sum before phase 1");
  if (!summing) {
    if (absl::StatusOr<graph_filter::SparseRows> g = DecodeGram(model, 0.5); !g.ok()) {
      return g.status();
    }
  }
  return std::unique_ptr<PriviRecUpdater>(new PriviRecUpdater(std::move(model)));
}

absl::StatusOr<v1::RoundPlan> PriviRecUpdater::Plan() const {
  // After the sums too: the plan carries the model (evaluation, recommendations).
  const v1::PriviRecConfig& c = model_.config();
  v1::RoundPlan plan;
  plan.set_algorithm(std::string(kAlgorithmName));
  plan.set_round(model_.round());
  plan.set_phase(model_.phase());
  if (absl::Status s =
          SetPlanPayload(model_, kAlgorithmName,
                         "the catalogue (the Gram sum has m (m + 1) / 2 coordinates)", plan);
      !s.ok()) {
    return s;
  }
  const bool gram = model_.round() == 0 && model_.phase() == kGramPhase;
  plan.set_length(gram ? UpperLength(c.num_items()) : static_cast<uint64_t>(c.num_items()));
  absl::StatusOr<int> bits = PhaseBits(model_, gram ? kGramPhase : kDegreePhase);
  if (!bits.ok()) return bits.status();
  plan.set_bits(*bits);
  plan.set_client_bits(*bits);
  plan.set_combination(v1::COMBINATION_SECURE_SUM);
  // The whole population in every sum (fixed_population: the runtime invites every user and
  // ends the run when one is lost).
  plan.set_min_contributors(static_cast<uint64_t>(c.num_users()));
  plan.set_max_contributors(static_cast<uint64_t>(c.num_users()));
  return plan;
}

absl::Status PriviRecUpdater::ApplySum(absl::Span<const uint64_t> sum,
                                       absl::Span<const uint32_t> contributors) {
  const v1::PriviRecConfig& c = model_.config();
  if (model_.round() != 0) return absl::FailedPreconditionError("privirec: both sums applied");
  const auto n = static_cast<int64_t>(contributors.size());
  if (n != c.num_users()) {
    return absl::InvalidArgumentError(absl::StrCat("privirec: a sum of ", n, " users; the run's ",
                                                   c.num_users(), " must all be in it"));
  }
  const bool gram = model_.phase() == kGramPhase;
  const uint64_t length = gram ? UpperLength(c.num_items()) : static_cast<uint64_t>(c.num_items());
  if (sum.size() != length) {
    return absl::InvalidArgumentError(
        absl::StrCat("privirec: sum of length ", sum.size(), ", expected ", length));
  }
  if (Noisy(c)) {
    if (absl::Status s = ApplyNoisySum(model_.noise(), model_.phase(), sum, n, model_); !s.ok()) {
      return s;
    }
    model_.set_phase(gram ? 0 : kGramPhase);
    model_.set_round(gram ? 1 : 0);
    return absl::OkStatus();
  }
  // Every user adds at most 1 (degrees) or 2^f (Gram) per coordinate.
  const uint64_t most = static_cast<uint64_t>(n) << (gram ? c.frac_bits() : 0);
  for (size_t j = 0; j < sum.size(); ++j) {
    if (sum[j] > most) {
      return absl::OutOfRangeError(absl::StrCat("privirec: coordinate ", j, " of the sum is ",
                                                sum[j], " > ", most, " (a malformed input)"));
    }
  }
  if (!gram) {
    model_.mutable_degrees()->Assign(sum.begin(), sum.end());
    model_.set_phase(kGramPhase);
    return absl::OkStatus();
  }
  model_.clear_gram_index();
  model_.clear_gram_sum();
  for (size_t j = 0; j < sum.size(); ++j) {
    if (sum[j] == 0) continue;
    model_.add_gram_index(j);
    model_.add_gram_sum(sum[j]);
  }
  model_.set_phase(0);
  model_.set_round(1);
  return absl::OkStatus();
}

absl::StatusOr<std::optional<dp::LedgerEntry>> PriviRecUpdater::RoundPrivacy(
    int64_t participants, const std::vector<double>& orders) const {
  // Without the DP option nothing is added (docs/privacy-accounting.md section 4.7).
  if (!Noisy(model_.config()) || model_.round() != 0) return std::nullopt;
  absl::StatusOr<dp::LedgerEntry> entry =
      PhaseLedgerEntry(model_.config(), model_.noise(), model_.phase(), participants, orders);
  if (!entry.ok()) return entry.status();
  return *std::move(entry);
}

std::optional<dp::PrivacyBudget> PriviRecUpdater::budget() const {
  if (!Noisy(model_.config())) return std::nullopt;
  return NoiseBudget(model_.config());
}

}  // namespace fedmf::algorithms::privirec
