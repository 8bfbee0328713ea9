#include "common/algorithms/ldp_gd/contributor.h"

#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/algorithms/ldp_gd/ldp_gd.h"
#include "common/algorithms/ldp_gd/user_step.h"
#include "common/algorithms/matrix_proto.h"
#include "common/algorithms/plan_check.h"
#include "common/dp/binary_rr.h"

namespace fedmf::algorithms::ldp_gd {
absl::StatusOr<std::optional<v1::LdpGdUserState>> DecodeUserState(absl::string_view state,
                                                                  int rank) {
  if (state.empty()) return std::nullopt;
  v1::LdpGdUserState decoded;
  if (!decoded.ParseFromString(std::string(state)) || decoded.user_factor_size() != rank ||
      decoded.round() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("ldp-gd participant state is not an LdpGdUserState with ", rank, " factors"));
  }
  for (double x : decoded.user_factor()) {
    if (!std::isfinite(x)) {
      return absl::InvalidArgumentError("ldp-gd participant state: a non-finite user factor");
    }
  }
  return decoded;
}

absl::StatusOr<std::unique_ptr<LdpGdContributor>> LdpGdContributor::Create(
    const v1::RoundPlan& plan) {
  v1::LdpGdBroadcast broadcast;
  if (!broadcast.ParseFromString(plan.payload())) {
    return absl::InvalidArgumentError("ldp-gd round plan: payload is not an LdpGdBroadcast");
  }
  const v1::LdpGdConfig& c = broadcast.config();
  if (absl::Status s = ValidateConfig(c); !s.ok()) return s;
  if (absl::Status s = CheckPlanAlgorithm(plan, AlgorithmName(c)); !s.ok()) return s;
  absl::StatusOr<Eigen::MatrixXd> v =
      MatrixFromProto(broadcast.item_factors(), c.num_items(), c.rank(), "ldp-gd item factors");
  if (!v.ok()) return v.status();
  if (absl::Status s = CheckPlanEnvelope(
          plan, AlgorithmName(c),
          {.round = broadcast.round(),
           .length = ReportDim(c),
           .bits = kBits,
           .combination = c.secure_sum() ? v1::COMBINATION_SECURE_SUM : v1::COMBINATION_CLEAR});
      !s.ok()) {
    return s;
  }
  absl::StatusOr<std::shared_ptr<const dp::GaussianProjection>> phi =
      RoundProjection(c, broadcast.round());
  if (!phi.ok()) return phi.status();
  return std::unique_ptr<LdpGdContributor>(
      new LdpGdContributor(std::move(broadcast), *std::move(phi), mf::FactorMatrix(*std::move(v))));
}

LdpGdContributor::LdpGdContributor(v1::LdpGdBroadcast broadcast,
                                   std::shared_ptr<const dp::GaussianProjection> projection,
                                   mf::FactorMatrix item_factors)
    : broadcast_(std::move(broadcast)),
      projection_(std::move(projection)),
      scorer_(std::move(item_factors), broadcast_.config().score_lambda(),
              broadcast_.config().score_kappa(), RatingScaleOf(broadcast_.config())) {}

absl::StatusOr<Eigen::VectorXd> LdpGdContributor::SteppedUserFactor(const LocalData& data,
                                                                    absl::string_view state) const {
  const v1::LdpGdConfig& c = broadcast_.config();
  absl::StatusOr<std::optional<v1::LdpGdUserState>> decoded = DecodeUserState(state, c.rank());
  if (!decoded.ok()) return decoded.status();
  if (!decoded->has_value()) return InitialUserFactor(c, data.participant_id);
  const v1::LdpGdUserState& s = **decoded;
  Eigen::VectorXd u = Eigen::Map<const Eigen::VectorXd>(s.user_factor().data(), c.rank());
  // One step per server step seen: the round of the last report was applied to V since, so step
  // u on it with that round's gamma. (A retried round, or a report the server never applied,
  // steps nothing.)
  const int64_t round = broadcast_.round();
  if (s.round() < round) {
    u = StepUserFactor(scorer_.item_factors(), u, data.train, c.num_users(), c.lambda_u(),
                       UserStep(c, round - 1));
  }
  return u;
}

absl::StatusOr<Contribution> LdpGdContributor::Contribute(const LocalData& data,
                                                          absl::string_view state,
                                                          dp::Rng& rng) const {
  if (data.is_party()) {
    return absl::InvalidArgumentError(
        "ldp-gd reports are per user (Algorithm 1/2): a silo party cannot contribute");
  }
  const v1::LdpGdConfig& c = broadcast_.config();
  if (absl::Status s = CheckRatings(data.train, c.num_items()); !s.ok()) return s;
  absl::StatusOr<Eigen::VectorXd> u = SteppedUserFactor(data, state);
  if (!u.ok()) return u.status();
  const mf::FactorMatrix& v = scorer_.item_factors();
  const Eigen::VectorXd residuals = Residuals(v, *u, data.train);
  const int d = c.rank();
  const auto entry = [&](int64_t s) {
    return projection_ != nullptr
               ? ProjectedGradientEntry(projection_->matrix(), *u, data.train, residuals, s / d,
                                        static_cast<int>(s % d))
               : ItemGradientEntry(*u, data.train, residuals, static_cast<int32_t>(s / d),
                                   static_cast<int>(s % d));
  };
  absl::StatusOr<dp::BinaryRrReport> report =
      dp::BinaryRrRandomizeEntry(ReportDim(c), entry, RoundEpsilon(c), rng);
  if (!report.ok()) return report.status();
  v1::LdpGdUserState next;
  next.set_round(broadcast_.round());
  next.mutable_user_factor()->Add(u->data(), u->data() + u->size());
  return Contribution{.vector = EncodeReport(*report),
                      .state = next.SerializeAsString(),
                      .user_factor = *std::move(u)};
}

absl::StatusOr<std::optional<dp::LedgerEntry>> LdpGdContributor::ParticipantCost(
    const LocalData&, absl::string_view) const {
  return RoundRelease(broadcast_.config(), broadcast_.round(), /*participants=*/1);
}

}  // namespace fedmf::algorithms::ldp_gd
