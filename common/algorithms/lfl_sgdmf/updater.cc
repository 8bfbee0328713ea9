#include "common/algorithms/lfl_sgdmf/updater.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/algorithms/lfl_sgdmf/lfl_sgdmf.h"
#include "common/algorithms/lib/fmf_sgd/embedding_clip.h"
#include "common/algorithms/matrix_proto.h"
#include "common/dp/hashing.h"
#include "common/dp/rng.h"

namespace fedmf::algorithms::lfl_sgdmf {
namespace {

absl::Status BadState(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("lfl-sgdmf state: ", what));
}

int64_t Phase1Survivors(const v1::LflSgdmfState& state) { return state.phase1_contributors_size(); }

constexpr uint64_t kTagSummedNoise = 0x6c666c2d4e2d7375ULL;  // "lfl-N-su"

}  // namespace

absl::StatusOr<std::unique_ptr<LflSgdmfUpdater>> LflSgdmfUpdater::Create(
    v1::LflSgdmfConfig config) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  if (config.noise() != v1::LFL_NOISE_NONE && config.noise_std() == 0) {
    absl::StatusOr<double> sigma = CalibrateNoiseStddev(config);
    if (!sigma.ok()) return sigma.status();
    config.set_noise_std(*sigma);
  }
  if (absl::StatusOr<int> bits = SumBits(config); !bits.ok()) return bits.status();
  v1::LflSgdmfState state;
  *state.mutable_item_factors() = MatrixToProto(InitialItemFactors(config));
  *state.mutable_config() = std::move(config);
  return std::unique_ptr<LflSgdmfUpdater>(new LflSgdmfUpdater(std::move(state)));
}

absl::StatusOr<std::unique_ptr<LflSgdmfUpdater>> LflSgdmfUpdater::Restore(absl::string_view bytes) {
  v1::LflSgdmfState state;
  if (!state.ParseFromString(std::string(bytes))) {
    return BadState("not a fedmf.v1.LflSgdmfState");
  }
  const v1::LflSgdmfConfig& c = state.config();
  if (absl::Status s = ValidateConfig(c); !s.ok()) return s;
  if (absl::StatusOr<int> bits = SumBits(c); !bits.ok()) return bits.status();
  absl::StatusOr<Eigen::MatrixXd> v =
      MatrixFromProto(state.item_factors(), c.num_items(), c.rank(), "lfl-sgdmf item factors");
  if (!v.ok()) return v.status();
  if (state.round() < 0 || state.round() > c.rounds()) {
    return BadState(absl::StrCat("round ", state.round(), " outside [0, ", c.rounds(), "]"));
  }
  const bool pending = state.phase() == 1;
  const bool noise_kept = pending && c.simulation_summed_noise();
  if ((state.phase() != 0 && !(pending && HasPhase1(c))) ||
      (pending != (state.phase1_sum_size() == UploadLength(c))) ||
      (noise_kept != (state.phase1_noise_size() == UploadLength(c))) ||
      (!pending && state.phase1_contributors_size() != 0) ||
      (pending && state.phase1_contributors_size() < c.min_contributors()) ||
      !std::is_sorted(state.phase1_contributors().begin(), state.phase1_contributors().end())) {
    return BadState(absl::StrCat("phase ", state.phase(), " with ", state.phase1_sum_size(),
                                 " pending sums and ", state.phase1_contributors_size(),
                                 " phase-1 contributors"));
  }
  return std::unique_ptr<LflSgdmfUpdater>(new LflSgdmfUpdater(std::move(state)));
}

absl::StatusOr<v1::RoundPlan> LflSgdmfUpdater::Plan() const {
  const v1::LflSgdmfConfig& c = state_.config();
  absl::StatusOr<int> bits = SumBits(c);
  if (!bits.ok()) return bits.status();
  v1::LflSgdmfBroadcast broadcast;
  *broadcast.mutable_config() = c;
  broadcast.set_round(state_.round());
  broadcast.set_phase(state_.phase());
  v1::RoundPlan plan;
  plan.set_algorithm(std::string(kAlgorithmName));
  plan.set_round(state_.round());
  plan.set_phase(state_.phase());
  plan.set_length(static_cast<uint64_t>(UploadLength(c)));
  plan.set_bits(*bits);
  plan.set_client_bits(*bits);
  plan.set_combination(v1::COMBINATION_SECURE_SUM);
  if (state_.phase() == 0) {
    // Phase 1 is for phase 0's contributors, who hold V already.
    *broadcast.mutable_item_factors() = state_.item_factors();
    plan.set_min_contributors(static_cast<uint64_t>(c.min_contributors()));
    plan.set_max_contributors(static_cast<uint64_t>(c.cohort_size()));
  } else {
    const int64_t n1 = Phase1Survivors(state_);
    broadcast.set_phase1_survivors(n1);
    // Phase 1 tolerates the same fraction of dropouts among phase 0's survivors.
    plan.set_min_contributors(static_cast<uint64_t>(MinContributors(n1, c.omega())));
    plan.set_max_contributors(static_cast<uint64_t>(n1));
  }
  plan.set_payload(broadcast.SerializeAsString());
  return plan;
}

std::vector<uint32_t> LflSgdmfUpdater::PhaseParticipants() const {
  return {state_.phase1_contributors().begin(), state_.phase1_contributors().end()};
}

absl::Status LflSgdmfUpdater::ApplySum(absl::Span<const uint64_t> sum,
                                       absl::Span<const uint32_t> contributors) {
  const v1::LflSgdmfConfig& c = state_.config();
  if (state_.round() >= c.rounds()) {
    return absl::FailedPreconditionError(
        absl::StrCat("lfl-sgdmf: all ", c.rounds(), " rounds are applied"));
  }
  if (sum.size() != static_cast<size_t>(UploadLength(c))) {
    return absl::InvalidArgumentError(
        absl::StrCat("lfl-sgdmf: sum of length ", sum.size(), ", expected ", UploadLength(c)));
  }
  const auto n = static_cast<int64_t>(contributors.size());
  absl::StatusOr<Eigen::VectorXd> decoded = DecodeSum(c, sum);
  if (!decoded.ok()) return decoded.status();
  // Summed noise: the draws of each phase of each round come from their own stream.
  dp::Rng summed_noise(dp::DeriveStreamKey(c.seed(), kTagSummedNoise),
                       static_cast<uint64_t>(2 * state_.round() + state_.phase()));
  if (state_.phase() == 0) {
    if (n < c.min_contributors() || n > c.cohort_size()) {
      return absl::InvalidArgumentError(absl::StrCat("lfl-sgdmf: phase-0 sum of ", n,
                                                     " users; it needs ", c.min_contributors(),
                                                     " to ", c.cohort_size()));
    }
    Eigen::VectorXd noise;
    if (c.simulation_summed_noise()) {
      noise = SummedPhase0Noise(c, n, UploadLength(c), summed_noise);
      *decoded += noise;
    }
    if (!HasPhase1(c)) return StepItems(*decoded, n);
    state_.mutable_phase1_sum()->Assign(decoded->data(), decoded->data() + decoded->size());
    state_.mutable_phase1_noise()->Assign(noise.data(), noise.data() + noise.size());
    state_.mutable_phase1_contributors()->Assign(contributors.begin(), contributors.end());
    state_.set_phase(1);
    return absl::OkStatus();
  }
  const int64_t n1 = Phase1Survivors(state_);
  for (uint32_t id : contributors) {
    if (!std::binary_search(state_.phase1_contributors().begin(),
                            state_.phase1_contributors().end(), id)) {
      return absl::InvalidArgumentError(
          absl::StrCat("lfl-sgdmf: phase-1 contributor ", id, " did not contribute to phase 0"));
    }
  }
  if (c.simulation_summed_noise()) {
    *decoded += SummedPhase1Noise(
        c, Eigen::Map<const Eigen::VectorXd>(state_.phase1_noise().data(), UploadLength(c)), n1, n,
        summed_noise);
  }
  const Eigen::Map<const Eigen::VectorXd> s1(state_.phase1_sum().data(), UploadLength(c));
  const Eigen::VectorXd estimate = s1 + ReplacementWeight(c, n1, n) * *decoded;
  return StepItems(estimate, n1);
}

absl::Status LflSgdmfUpdater::StepItems(const Eigen::VectorXd& gradient_sum, int64_t contributors) {
  const v1::LflSgdmfConfig& c = state_.config();
  absl::StatusOr<Eigen::MatrixXd> v =
      MatrixFromProto(state_.item_factors(), c.num_items(), c.rank(), "lfl-sgdmf item factors");
  if (!v.ok()) return v.status();
  // gradient_sum is row-major m x p (the uploads' layout).
  const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> g(
      gradient_sum.data(), c.num_items(), c.rank());
  Eigen::MatrixXd next = *v - c.learning_rate() / static_cast<double>(contributors) * g;
  if (absl::Status s = fmf_sgd::ProjectRows(next, c.rating_max()); !s.ok()) return s;
  *state_.mutable_item_factors() = MatrixToProto(next);
  AbandonRound();  // clears the phase-1 bookkeeping
  state_.set_round(state_.round() + 1);
  return absl::OkStatus();
}

void LflSgdmfUpdater::AbandonRound() {
  state_.set_phase(0);
  state_.clear_phase1_sum();
  state_.clear_phase1_noise();
  state_.clear_phase1_contributors();
}

absl::StatusOr<std::optional<dp::LedgerEntry>> LflSgdmfUpdater::RoundPrivacy(
    int64_t participants, const std::vector<double>& orders) const {
  const int phase = state_.phase();
  return PhaseRelease(state_.config(), state_.round(), phase,
                      phase == 0 ? participants : Phase1Survivors(state_), orders);
}

absl::StatusOr<std::optional<dp::LedgerEntry>> LflSgdmfUpdater::RemainingRoundPrivacyBound(
    int64_t participants, const std::vector<double>& orders) const {
  if (state_.phase() != 0) return RoundPrivacy(participants, orders);
  return RoundReleaseBound(state_.config(), state_.round(), orders);
}

std::optional<dp::PrivacyBudget> LflSgdmfUpdater::budget() const {
  const v1::LflNoiseMode noise = state_.config().noise();
  if (noise == v1::LFL_NOISE_NONE || noise == v1::LFL_NOISE_TWO_PHASE_PAPER) return std::nullopt;
  return Budget(state_.config());
}

absl::StatusOr<std::string> LflSgdmfUpdater::SerializeState() const {
  return state_.SerializeAsString();
}

}  // namespace fedmf::algorithms::lfl_sgdmf
