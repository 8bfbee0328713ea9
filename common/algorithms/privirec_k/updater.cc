#include "common/algorithms/privirec_k/updater.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/algorithms/plan_payload.h"
#include "common/algorithms/privirec_k/noise.h"
#include "common/algorithms/privirec_k/privirec_k.h"

namespace fedmf::algorithms::privirec_k {
namespace {

absl::Status BadState(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("privirec-k state: ", what));
}

void SetBasis(const RowMatrix& x, v1::PriviRecKModel& model) {
  model.mutable_basis()->Assign(x.data(), x.data() + x.size());
}

bool PowerPhase(const v1::PriviRecKModel& model) {
  return model.round() == 0 && model.phase() != kDegreePhase;
}

}  // namespace

absl::StatusOr<std::unique_ptr<PriviRecKUpdater>> PriviRecKUpdater::Create(
    v1::PriviRecKConfig config) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  v1::PriviRecKModel model;
  if (Noisy(config)) {
    absl::StatusOr<v1::PriviRecKNoise> noise = CalibrateNoise(config);
    if (!noise.ok()) return noise.status();
    *model.mutable_noise() = *std::move(noise);
  }
  *model.mutable_config() = std::move(config);
  return std::unique_ptr<PriviRecKUpdater>(new PriviRecKUpdater(std::move(model)));
}

absl::StatusOr<std::unique_ptr<PriviRecKUpdater>> PriviRecKUpdater::Restore(
    absl::string_view bytes) {
  v1::PriviRecKModel model;
  if (!model.ParseFromString(std::string(bytes))) return BadState("not a fedmf.v1.PriviRecKModel");
  const v1::PriviRecKConfig& c = model.config();
  if (absl::Status s = ValidateConfig(c); !s.ok()) return s;
  if (model.round() != 0 && model.round() != 1) {
    return BadState(absl::StrCat("round ", model.round()));
  }
  if (model.round() == 0 && (model.phase() < 0 || model.phase() > c.power_sums())) {
    return BadState(absl::StrCat("phase ", model.phase()));
  }
  for (int phase = 0; phase <= c.power_sums(); ++phase) {
    if (absl::StatusOr<int> bits = PhaseBits(model, phase); !bits.ok()) return bits.status();
  }
  const bool has_degrees = model.round() == 1 || model.phase() != kDegreePhase;
  if (DegreeCount(model) != (has_degrees ? c.num_items() : 0)) {
    return BadState(absl::StrCat(DegreeCount(model), " degrees"));
  }
  const uint64_t basis = BasisLength(model);
  if (static_cast<uint64_t>(model.basis_size()) != basis) {
    return BadState(absl::StrCat(model.basis_size(), " basis values, expected ", basis));
  }
  if (model.values_size() != (model.round() == 1 ? c.rank() : 0)) {
    return BadState(absl::StrCat(model.values_size(), " eigenvalues"));
  }
  return std::unique_ptr<PriviRecKUpdater>(new PriviRecKUpdater(std::move(model)));
}

absl::StatusOr<v1::RoundPlan> PriviRecKUpdater::Plan() const {
  // After the sums too: the plan carries the model (evaluation, recommendations).
  const v1::PriviRecKConfig& c = model_.config();
  v1::RoundPlan plan;
  plan.set_algorithm(std::string(kAlgorithmName));
  plan.set_round(model_.round());
  plan.set_phase(model_.phase());
  if (absl::Status s = SetPlanPayload(model_, kAlgorithmName, "option rank", plan); !s.ok()) {
    return s;
  }
  const bool power = PowerPhase(model_);
  plan.set_length(power ? PowerLength(c) : static_cast<uint64_t>(c.num_items()));
  absl::StatusOr<int> bits = PhaseBits(model_, power ? model_.phase() : kDegreePhase);
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

absl::Status PriviRecKUpdater::ApplySum(absl::Span<const uint64_t> sum,
                                        absl::Span<const uint32_t> contributors) {
  const v1::PriviRecKConfig& c = model_.config();
  if (model_.round() != 0) return absl::FailedPreconditionError("privirec-k: every sum applied");
  const auto n = static_cast<int64_t>(contributors.size());
  if (n != c.num_users()) {
    return absl::InvalidArgumentError(absl::StrCat("privirec-k: a sum of ", n, " users; the run's ",
                                                   c.num_users(), " must all be in it"));
  }
  if (model_.phase() == kDegreePhase && Noisy(c)) {
    absl::StatusOr<std::vector<double>> degrees = DecodeNoisyDegrees(c, model_.noise(), sum, n);
    if (!degrees.ok()) return degrees.status();
    model_.mutable_noisy_degrees()->Assign(degrees->begin(), degrees->end());
    SetBasis(StartBasis(c), model_);
    model_.set_phase(1);
    return absl::OkStatus();
  }
  if (model_.phase() == kDegreePhase) {
    if (sum.size() != static_cast<size_t>(c.num_items())) {
      return absl::InvalidArgumentError(absl::StrCat("privirec-k: degree sum of length ",
                                                     sum.size(), ", expected ", c.num_items()));
    }
    for (size_t j = 0; j < sum.size(); ++j) {
      if (sum[j] > static_cast<uint64_t>(n)) {
        return absl::OutOfRangeError(absl::StrCat("privirec-k: degree ", j, " is ", sum[j], " > ",
                                                  n, " (a malformed input)"));
      }
    }
    model_.mutable_degrees()->Assign(sum.begin(), sum.end());
    SetBasis(StartBasis(c), model_);
    model_.set_phase(1);
    return absl::OkStatus();
  }
  absl::StatusOr<RowMatrix> y = Noisy(c)
                                    ? DecodeNoisyPowerSum(c, model_.noise(), model_.phase(), sum, n)
                                    : DecodePowerSum(c, sum);
  if (!y.ok()) return y.status();
  if (model_.phase() < c.power_sums()) {
    SetBasis(Orthonormalize(*y).q, model_);
    model_.set_phase(model_.phase() + 1);
    return absl::OkStatus();
  }
  SingularBasis basis = FinishBasis(PowerIterate(model_), *y, c.rayleigh_ritz(), c.rank());
  SetBasis(basis.vectors, model_);
  model_.mutable_values()->Assign(basis.values.data(), basis.values.data() + basis.values.size());
  model_.set_phase(0);
  model_.set_round(1);
  return absl::OkStatus();
}

absl::StatusOr<std::optional<dp::LedgerEntry>> PriviRecKUpdater::RoundPrivacy(
    int64_t participants, const std::vector<double>& orders) const {
  if (!Noisy(model_.config()) || model_.round() != 0) return std::nullopt;
  absl::StatusOr<dp::LedgerEntry> entry =
      PhaseLedgerEntry(model_.config(), model_.noise(), model_.phase(), participants, orders);
  if (!entry.ok()) return entry.status();
  return *std::move(entry);
}

std::optional<dp::PrivacyBudget> PriviRecKUpdater::budget() const {
  if (!Noisy(model_.config())) return std::nullopt;
  return NoiseBudget(model_.config());
}

}  // namespace fedmf::algorithms::privirec_k
