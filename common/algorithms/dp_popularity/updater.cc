#include "common/algorithms/dp_popularity/updater.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/algorithms/dp_popularity/dp_popularity.h"

namespace fedmf::algorithms::dp_popularity {
namespace {

absl::Status BadState(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("dp-popularity state: ", what));
}

}  // namespace

absl::StatusOr<std::unique_ptr<DpPopularityUpdater>> DpPopularityUpdater::Create(
    v1::DpPopularityConfig config) {
  if (config.noise()) {
    absl::StatusOr<double> sigma = CalibrateNoise(config);
    if (!sigma.ok()) return sigma.status();
    config.set_noise_std(*sigma);
  }
  if (absl::StatusOr<int> bits = SumBits(config); !bits.ok()) return bits.status();
  v1::DpPopularityState state;
  *state.mutable_config() = std::move(config);
  return std::unique_ptr<DpPopularityUpdater>(new DpPopularityUpdater(std::move(state)));
}

absl::StatusOr<std::unique_ptr<DpPopularityUpdater>> DpPopularityUpdater::Restore(
    absl::string_view bytes) {
  v1::DpPopularityState state;
  if (!state.ParseFromString(std::string(bytes))) {
    return BadState("not a fedmf.v1.DpPopularityState");
  }
  if (absl::StatusOr<int> bits = SumBits(state.config()); !bits.ok()) return bits.status();
  if (state.round() != 0 && state.round() != 1) {
    return BadState(absl::StrCat("round ", state.round(), " (dp-popularity has one)"));
  }
  const int64_t expected = state.round() == 1 ? state.config().num_items() : 0;
  if (state.counts_size() != expected) {
    return BadState(absl::StrCat(state.counts_size(), " counts in round ", state.round()));
  }
  return std::unique_ptr<DpPopularityUpdater>(new DpPopularityUpdater(std::move(state)));
}

absl::StatusOr<v1::RoundPlan> DpPopularityUpdater::Plan() const {
  // After the round too: the plan carries the model (evaluation, recommendations).
  const v1::DpPopularityConfig& c = state_.config();
  absl::StatusOr<int> bits = SumBits(c);
  if (!bits.ok()) return bits.status();
  v1::DpPopularityBroadcast broadcast;
  *broadcast.mutable_config() = c;
  broadcast.set_round(state_.round());
  *broadcast.mutable_counts() = state_.counts();
  v1::RoundPlan plan;
  plan.set_algorithm(std::string(kAlgorithmName));
  plan.set_round(state_.round());
  plan.set_phase(0);
  plan.set_payload(broadcast.SerializeAsString());
  plan.set_length(static_cast<uint64_t>(c.num_items()));
  plan.set_bits(*bits);
  plan.set_client_bits(*bits);
  plan.set_combination(v1::COMBINATION_SECURE_SUM);
  plan.set_min_contributors(static_cast<uint64_t>(c.min_contributors()));
  plan.set_max_contributors(static_cast<uint64_t>(c.cohort_size()));
  return plan;
}

absl::Status DpPopularityUpdater::ApplySum(absl::Span<const uint64_t> sum,
                                           absl::Span<const uint32_t> contributors) {
  const v1::DpPopularityConfig& c = state_.config();
  if (state_.round() >= 1) return absl::FailedPreconditionError("dp-popularity: counted already");
  const auto n = static_cast<int64_t>(contributors.size());
  if (n < c.min_contributors() || n > c.cohort_size()) {
    return absl::InvalidArgumentError(absl::StrCat("dp-popularity: sum of ", n,
                                                   " users; the round accepts ",
                                                   c.min_contributors(), " to ", c.cohort_size()));
  }
  if (sum.size() != static_cast<size_t>(c.num_items())) {
    return absl::InvalidArgumentError(
        absl::StrCat("dp-popularity: sum of length ", sum.size(), ", expected ", c.num_items()));
  }
  Eigen::VectorXd counts(c.num_items());
  if (c.noise()) {
    absl::StatusOr<dp::DistributedDiscreteGaussian> mechanism = MakeMechanism(c);
    if (!mechanism.ok()) return mechanism.status();
    absl::StatusOr<Eigen::VectorXd> decoded = mechanism->Decode(sum, n);
    if (!decoded.ok()) return decoded.status();
    counts = *std::move(decoded);
  } else {
    // Without noise the sum is at most n < 2^bits: it cannot wrap.
    for (size_t j = 0; j < sum.size(); ++j)
      counts[static_cast<Eigen::Index>(j)] = static_cast<double>(sum[j]);
  }
  state_.mutable_counts()->Assign(counts.data(), counts.data() + counts.size());
  state_.set_round(1);
  return absl::OkStatus();
}

absl::StatusOr<std::optional<dp::LedgerEntry>> DpPopularityUpdater::RoundPrivacy(
    int64_t participants, const std::vector<double>& orders) const {
  return RoundRelease(state_.config(), participants, orders);
}

std::optional<dp::PrivacyBudget> DpPopularityUpdater::budget() const {
  if (!state_.config().noise()) return std::nullopt;
  return Budget(state_.config());
}

absl::StatusOr<std::string> DpPopularityUpdater::SerializeState() const {
  return state_.SerializeAsString();
}

}  // namespace fedmf::algorithms::dp_popularity
