#include "common/algorithms/hdpmf/updater.h"

#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/algorithms/hdpmf/hdpmf.h"
#include "common/algorithms/matrix_proto.h"
#include "common/dp/hashing.h"
#include "common/dp/rng.h"

namespace fedmf::algorithms::hdpmf {
namespace {

constexpr uint64_t kTagSummedNoise = 0x6864706d662d4e73ULL;  // "hdpmf-Ns"

}  // namespace

absl::StatusOr<std::unique_ptr<HdpmfUpdater>> HdpmfUpdater::Create(const v1::HdpmfConfig& config) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  v1::HdpmfState state;
  *state.mutable_config() = config;
  return std::unique_ptr<HdpmfUpdater>(
      new HdpmfUpdater(std::move(state), InitialItemFactors(config)));
}

absl::StatusOr<std::unique_ptr<HdpmfUpdater>> HdpmfUpdater::Restore(absl::string_view bytes) {
  v1::HdpmfState state;
  if (!state.ParseFromString(std::string(bytes))) {
    return absl::InvalidArgumentError("hdpmf state: not a fedmf.v1.HdpmfState");
  }
  const v1::HdpmfConfig& c = state.config();
  if (absl::Status s = ValidateConfig(c); !s.ok()) return s;
  if (state.round() < 0 || state.round() > c.rounds()) {
    return absl::InvalidArgumentError(
        absl::StrCat("hdpmf state: round ", state.round(), " outside [0, ", c.rounds(), "]"));
  }
  absl::StatusOr<Eigen::MatrixXd> v =
      MatrixFromProto(state.item_factors(), c.num_items(), c.rank(), "hdpmf state item factors");
  if (!v.ok()) return v.status();
  state.clear_item_factors();
  return std::unique_ptr<HdpmfUpdater>(new HdpmfUpdater(std::move(state), *std::move(v)));
}

absl::StatusOr<v1::RoundPlan> HdpmfUpdater::Plan() const {
  const v1::HdpmfConfig& c = state_.config();
  absl::StatusOr<RoundCodec> codec = MakeRoundCodec(c, item_factors_);
  if (!codec.ok()) return codec.status();
  v1::HdpmfBroadcast broadcast;
  *broadcast.mutable_config() = c;
  broadcast.set_round(state_.round());
  *broadcast.mutable_item_factors() = MatrixToProto(item_factors_);
  v1::RoundPlan plan;
  plan.set_algorithm(std::string(kName));
  plan.set_round(state_.round());
  plan.set_phase(0);
  plan.set_payload(broadcast.SerializeAsString());
  plan.set_length(static_cast<uint64_t>(GradientDim(c)));
  plan.set_bits(codec->bits);
  plan.set_client_bits(codec->bits);
  plan.set_combination(v1::COMBINATION_SECURE_SUM);
  plan.set_min_contributors(c.min_contributors());
  plan.set_max_contributors(c.cohort_size());
  return plan;
}

absl::Status HdpmfUpdater::ApplySum(absl::Span<const uint64_t> sum,
                                    absl::Span<const uint32_t> contributors) {
  const v1::HdpmfConfig& c = state_.config();
  const int64_t round = state_.round();
  if (round >= c.rounds()) {
    return absl::FailedPreconditionError(absl::StrCat("hdpmf: all ", c.rounds(), " rounds done"));
  }
  const int64_t n = static_cast<int64_t>(contributors.size());
  if (n < c.min_contributors() || n > c.cohort_size()) {
    return absl::InvalidArgumentError(absl::StrCat("hdpmf: a sum of ", n, " contributions, need [",
                                                   c.min_contributors(), ", ", c.cohort_size(),
                                                   "]"));
  }
  if (static_cast<int64_t>(sum.size()) != GradientDim(c)) {
    return absl::InvalidArgumentError(
        absl::StrCat("hdpmf: a sum of ", sum.size(), " values, expected ", GradientDim(c)));
  }
  absl::StatusOr<RoundCodec> codec = MakeRoundCodec(c, item_factors_);
  if (!codec.ok()) return codec.status();
  absl::StatusOr<Eigen::VectorXd> decoded = codec->Decode(sum);
  if (!decoded.ok()) return decoded.status();
  if (c.simulation_summed_noise()) {
    // The noise the n contributors left out, drawn at once from the round's own stream.
    dp::Rng rng(dp::DeriveStreamKey(c.seed(), kTagSummedNoise), static_cast<uint64_t>(round));
    absl::StatusOr<Eigen::VectorXd> noise = SummedNoise(c, n, decoded->size(), rng);
    if (!noise.ok()) return noise.status();
    *decoded += *noise;
  }
  // Row-major m x K, as the contributors laid it out.
  const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>
      gradient(decoded->data(), c.num_items(), c.rank());
  item_factors_ -= StepSize(c, round) * (gradient + 2 * c.lambda() * item_factors_);
  state_.set_round(round + 1);
  return absl::OkStatus();
}

absl::StatusOr<std::optional<dp::LedgerEntry>> HdpmfUpdater::RoundPrivacy(
    int64_t participants, const std::vector<double>&) const {
  return RoundRelease(state_.config(), state_.round(), participants);
}

std::optional<dp::PrivacyBudget> HdpmfUpdater::budget() const {
  const v1::HdpmfConfig& c = state_.config();
  if (c.variant() == v1::HDPMF_VARIANT_MF) return std::nullopt;
  return dp::PrivacyBudget::PureDp(c.epsilon(), c.mode() == v1::HDPMF_MODE_PAPER
                                                    ? dp::PrivacyUnit::kRating
                                                    : dp::PrivacyUnit::kUser);
}

absl::StatusOr<std::string> HdpmfUpdater::SerializeState() const {
  v1::HdpmfState state = state_;
  *state.mutable_item_factors() = MatrixToProto(item_factors_);
  return state.SerializeAsString();
}

}  // namespace fedmf::algorithms::hdpmf
