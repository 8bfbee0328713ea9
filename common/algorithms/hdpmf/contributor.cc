#include "common/algorithms/hdpmf/contributor.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/hdpmf/privacy_spec.h"
#include "common/algorithms/hdpmf/user_math.h"
#include "common/algorithms/matrix_proto.h"
#include "common/algorithms/plan_check.h"
#include "common/dp/clipping.h"
#include "common/dp/samplers.h"

namespace fedmf::algorithms::hdpmf {
absl::StatusOr<std::optional<v1::HdpmfUserState>> DecodeUserState(absl::string_view state,
                                                                  int rank) {
  if (state.empty()) return std::nullopt;
  v1::HdpmfUserState decoded;
  if (!decoded.ParseFromString(std::string(state)) || decoded.user_factor_size() != rank ||
      decoded.round() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("hdpmf participant state is not an HdpmfUserState with ", rank, " factors"));
  }
  for (double x : decoded.user_factor()) {
    if (!std::isfinite(x)) {
      return absl::InvalidArgumentError("hdpmf participant state: a non-finite user factor");
    }
  }
  if (!(decoded.privacy_weight() > 0 && decoded.privacy_weight() <= 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "hdpmf participant state: privacy_weight=", decoded.privacy_weight(), ", need (0, 1]"));
  }
  return decoded;
}

absl::StatusOr<std::unique_ptr<HdpmfContributor>> HdpmfContributor::Create(
    const v1::RoundPlan& plan) {
  absl::StatusOr<v1::HdpmfBroadcast> parsed = ParsePlanPayload<v1::HdpmfBroadcast>(plan, kName);
  if (!parsed.ok()) return parsed.status();
  const v1::HdpmfBroadcast& broadcast = *parsed;
  const v1::HdpmfConfig& c = broadcast.config();
  if (absl::Status s = ValidateConfig(c); !s.ok()) return s;
  absl::StatusOr<Eigen::MatrixXd> v =
      MatrixFromProto(broadcast.item_factors(), c.num_items(), c.rank(), "hdpmf item factors");
  if (!v.ok()) return v.status();
  absl::StatusOr<RoundCodec> codec = MakeRoundCodec(c, *v);
  if (!codec.ok()) return codec.status();
  if (broadcast.round() < 0 || broadcast.round() > c.rounds()) {
    return absl::InvalidArgumentError(absl::StrCat("hdpmf round plan: broadcast round ",
                                                   broadcast.round(), " outside 0..", c.rounds()));
  }
  // The noise shares assume n_min honest clients; a plan accepting fewer would void the guarantee.
  if (absl::Status s = CheckPlanEnvelope(plan, kName,
                                         {.round = broadcast.round(),
                                          .length = GradientDim(c),
                                          .bits = codec->bits,
                                          .min_contributors_at_least = c.min_contributors(),
                                          .max_contributors_at_most = c.cohort_size()});
      !s.ok()) {
    return s;
  }
  std::vector<double> gamma = ItemWeights(c.spec(), c.num_items());
  const double threshold = c.variant() == v1::HDPMF_VARIANT_PDPMF ? PdpmfThreshold(c) : 0;
  HdpmfScorer scorer(*v, {.item_weights = Stretches(c) ? gamma : std::vector<double>{},
                          .rescale = !c.skip_rescaling(),
                          .lambda = c.score_lambda(),
                          .scale = c.skip_prediction_clamp() ? RatingScale{}
                                                             : RatingScale{.min = c.rating_min(),
                                                                           .max = c.rating_max()}});
  return std::unique_ptr<HdpmfContributor>(
      new HdpmfContributor(std::move(broadcast), *codec, UserWeights(c.spec(), c.num_users()),
                           std::move(gamma), threshold, std::move(scorer)));
}

absl::StatusOr<v1::HdpmfUserState> HdpmfContributor::CurrentState(const LocalData& data,
                                                                  absl::string_view state) const {
  const v1::HdpmfConfig& c = broadcast_.config();
  absl::StatusOr<std::optional<v1::HdpmfUserState>> decoded = DecodeUserState(state, c.rank());
  if (!decoded.ok()) return decoded.status();
  if (decoded->has_value()) return **decoded;
  if (data.participant_id < 1 || data.participant_id > c.num_users()) {
    return absl::InvalidArgumentError(absl::StrCat("hdpmf: participant id ", data.participant_id,
                                                   " outside [1, ", c.num_users(), "]"));
  }
  v1::HdpmfUserState initial;
  initial.set_round(-1);
  const Eigen::VectorXd u = InitialUserFactor(c, data.participant_id);
  initial.mutable_user_factor()->Add(u.data(), u.data() + u.size());
  initial.set_privacy_weight(user_weights_[data.participant_id - 1]);
  return initial;
}

absl::StatusOr<Contribution> HdpmfContributor::Contribute(const LocalData& data,
                                                          absl::string_view state,
                                                          dp::Rng& rng) const {
  if (data.is_party()) {
    return absl::InvalidArgumentError(
        "hdpmf contributions are per user (its weight and ledger): a silo party cannot contribute");
  }
  const v1::HdpmfConfig& c = broadcast_.config();
  const int64_t round = broadcast_.round();
  if (round >= c.rounds()) {
    return absl::FailedPreconditionError(
        absl::StrCat("hdpmf: all ", c.rounds(), " rounds are done"));
  }
  if (absl::Status s = CheckRatings(data.train, c); !s.ok()) return s;
  absl::StatusOr<v1::HdpmfUserState> current = CurrentState(data, state);
  if (!current.ok()) return current.status();
  // PDPMF trains on one sample of the user's ratings, drawn from a seed of its own kept in its
  // state (Zhang et al. sample once, before training).
  if (c.variant() == v1::HDPMF_VARIANT_PDPMF && current->round() < 0) {
    current->set_sample_seed(rng());
  }
  UserRound user;
  StepUser(data, *std::move(current), user);
  const double beta = user.state.privacy_weight();
  const Eigen::MatrixXd& v = scorer_.item_factors();
  const Eigen::VectorXd& u = user.user_factor;
  Eigen::MatrixXd gradient = RatedItemGradient(v, u, user.train, user.targets);
  // The paper's unprojected u may leave the codec's bound: clamped so that the sum decodes.
  if (c.skip_user_projection()) gradient = gradient.cwiseMax(-codec_.bound).cwiseMin(codec_.bound);
  if (c.mode() == v1::HDPMF_MODE_SOUND) {
    absl::StatusOr<Eigen::VectorXd> clipped =
        dp::ClipL1(Eigen::Map<const Eigen::VectorXd>(gradient.data(), gradient.size()), c.clip());
    if (!clipped.ok()) return clipped.status();
    gradient =
        beta * Eigen::Map<const Eigen::MatrixXd>(clipped->data(), gradient.rows(), gradient.cols());
  }
  absl::StatusOr<ContributionVector> vector = Upload(user.train, gradient, rng);
  if (!vector.ok()) return vector.status();
  v1::HdpmfUserState next;
  next.set_round(round);
  next.mutable_user_factor()->Add(u.data(), u.data() + u.size());
  next.set_privacy_weight(beta);
  next.set_sample_seed(user.state.sample_seed());
  return Contribution{
      .vector = *std::move(vector), .state = next.SerializeAsString(), .user_factor = u};
}

absl::StatusOr<ContributionVector> HdpmfContributor::Upload(const data::RatingRow& rated,
                                                            const Eigen::MatrixXd& gradient,
                                                            dp::Rng& rng) const {
  const v1::HdpmfConfig& c = broadcast_.config();
  // Row-major: coordinate j K + l is item j, factor l; only the rated items' rows can be nonzero.
  std::vector<uint64_t> indices;
  indices.reserve(gradient.size());
  Eigen::VectorXd values(gradient.size());
  for (int64_t k = 0; k < rated.size(); ++k) {
    for (int l = 0; l < c.rank(); ++l) {
      indices.push_back(static_cast<uint64_t>(rated.indices[k]) * c.rank() + l);
      values[k * c.rank() + l] = gradient(k, l);
    }
  }
  if (c.simulation_summed_noise()) {  // the updater draws the noise (hdpmf.h)
    absl::StatusOr<std::vector<uint64_t>> encoded = codec_.Encode(values, rng);
    if (!encoded.ok()) return encoded.status();
    return ContributionVector::Sparse(std::move(indices), *std::move(encoded));
  }
  absl::StatusOr<Eigen::VectorXd> noisy = NoiseShare(c, GradientDim(c), rng);
  if (!noisy.ok()) return noisy.status();
  for (size_t i = 0; i < indices.size(); ++i) (*noisy)[indices[i]] += values[i];
  absl::StatusOr<std::vector<uint64_t>> encoded = codec_.Encode(*noisy, rng);
  if (!encoded.ok()) return encoded.status();
  return ContributionVector::Dense(*std::move(encoded));
}

void HdpmfContributor::StepUser(const LocalData& data, v1::HdpmfUserState state,
                                UserRound& user) const {
  const v1::HdpmfConfig& c = broadcast_.config();
  const int64_t round = broadcast_.round();
  user.state = std::move(state);
  user.train = data.train;
  if (c.variant() == v1::HDPMF_VARIANT_PDPMF) {
    dp::Rng sampler(user.state.sample_seed());
    for (int64_t k = 0; k < data.train.size(); ++k) {
      const int32_t j = data.train.indices[k];
      if (dp::Bernoulli(sampler,
                        PdpmfKeepProbability(c, pdpmf_threshold_,
                                             user.state.privacy_weight() * item_weights_[j]))) {
        user.kept_items.push_back(j);
        user.kept_ratings.push_back(data.train.ratings[k]);
      }
    }
    user.train = data::RatingRow{user.kept_items, user.kept_ratings, {}};
  }
  user.targets = Targets(c, user.train, user.state.privacy_weight(), item_weights_);
  Eigen::VectorXd u = Eigen::Map<const Eigen::VectorXd>(user.state.user_factor().data(), c.rank());
  // The step of the previous round's line 12, on the V that round produced. (A retried round, or
  // a contribution the server never applied, steps nothing.)
  if (user.state.round() >= 0 && user.state.round() < round) {
    u = StepUserFactor(scorer_.item_factors(), u, user.train, user.targets, c.lambda(),
                       StepSize(c, round - 1));
  }
  // Theorem 2's sensitivity and the codec's bound need ||u|| <= 1 (user_math.h); bounded here
  // rather than only after a step, as the state is the device's and may be stale or corrupt.
  user.user_factor = BoundUserFactor(c, std::move(u));
}

absl::StatusOr<std::unique_ptr<Scorer>> HdpmfContributor::PersonalScorer(
    const LocalData& data, absl::string_view state) const {
  const v1::HdpmfConfig& c = broadcast_.config();
  if (!c.score_with_trained_factor()) return nullptr;
  if (data.is_party()) {
    return absl::InvalidArgumentError("hdpmf: a silo party has no one user factor to score with");
  }
  if (absl::Status s = CheckRatings(data.train, c); !s.ok()) return s;
  absl::StatusOr<v1::HdpmfUserState> current = CurrentState(data, state);
  if (!current.ok()) return current.status();
  UserRound user;
  StepUser(data, *std::move(current), user);
  HdpmfScorer::Prediction prediction = scorer_.prediction();
  prediction.trained_factor = std::move(user.user_factor);
  prediction.user_weight = user.state.privacy_weight();
  return std::make_unique<HdpmfScorer>(scorer_.item_factors(), std::move(prediction));
}

absl::StatusOr<std::optional<dp::LedgerEntry>> HdpmfContributor::ParticipantCost(
    const LocalData& data, absl::string_view state) const {
  absl::StatusOr<v1::HdpmfUserState> current = CurrentState(data, state);
  if (!current.ok()) return current.status();
  return UserCost(broadcast_.config(), broadcast_.round(), current->privacy_weight());
}

}  // namespace fedmf::algorithms::hdpmf
