#include "common/algorithms/dpmf_rp/contributor.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/algorithms/matrix_proto.h"
#include "common/algorithms/plan_check.h"
#include "fedmf/v1/dpmf_rp.pb.h"

namespace fedmf::algorithms::dpmf_rp {
absl::StatusOr<std::unique_ptr<DpmfRpContributor>> DpmfRpContributor::Create(
    const v1::RoundPlan& plan) {
  absl::StatusOr<v1::DpmfRpBroadcast> parsed =
      ParsePlanPayload<v1::DpmfRpBroadcast>(plan, kAlgorithmName);
  if (!parsed.ok()) return parsed.status();
  const v1::DpmfRpBroadcast& broadcast = *parsed;
  absl::StatusOr<DpmfRpConfig> config = FromProto(broadcast.config(), "dpmf-rp broadcast");
  if (!config.ok()) return config.status();
  absl::StatusOr<Eigen::MatrixXd> model = MatrixFromProto(broadcast.model(), ModelRows(*config),
                                                          config->rank, "dpmf-rp broadcast model");
  if (!model.ok()) return model.status();
  std::optional<dp::SparseProjection> projection;
  if (config->projection == Projection::kSparse) {
    absl::StatusOr<dp::SparseProjection> s = dp::SparseProjection::Create(
        config->num_items, ProjectedDim(*config), broadcast.projection_seed());
    if (!s.ok()) return s.status();
    projection.emplace(*std::move(s));
  }
  Eigen::MatrixXd v;
  if (KeepsCompressedModel(*config)) {
    absl::StatusOr<Eigen::MatrixXd> lifted = projection->ApplyTranspose(*model);
    if (!lifted.ok()) return lifted.status();
    v = *std::move(lifted);
  } else {
    v = *std::move(model);
  }
  absl::StatusOr<ContributionCodec> codec = ContributionCodec::Create(
      *config, broadcast.mechanism(), broadcast.hadamard_seed(), MaxBucketItems(projection));
  if (!codec.ok()) return codec.status();
  if (absl::Status s =
          CheckPlanEnvelope(plan, kAlgorithmName,
                            {.round = broadcast.round(),
                             // The broadcast names no phase: every phase sums the same update
                             // (the runtime's multi-phase tests reuse DPMF-RP's plan).
                             .phase = plan.phase(),
                             .length = codec->length(),
                             .bits = codec->bits(),
                             .client_bits = codec->client_bits(),
                             .combination = config->secure_aggregation ? v1::COMBINATION_SECURE_SUM
                                                                       : v1::COMBINATION_CLEAR});
      !s.ok()) {
    return s;
  }
  return std::unique_ptr<DpmfRpContributor>(
      new DpmfRpContributor(*std::move(config), std::move(projection),
                            mf::FactorMatrix(std::move(v)), *std::move(codec)));
}

DpmfRpContributor::DpmfRpContributor(DpmfRpConfig config,
                                     std::optional<dp::SparseProjection> projection,
                                     mf::FactorMatrix item_factors, ContributionCodec codec)
    : config_(std::move(config)),
      projection_(std::move(projection)),
      scorer_(std::move(item_factors), config_.lambda,
              config_.ranking_kappa.value_or(config_.kappa), config_.rating_scale),
      codec_(std::move(codec)) {}

absl::StatusOr<Eigen::VectorXd> DpmfRpContributor::ProjectedWeights(const data::RatingRow& ratings,
                                                                    LocalGradient& local) const {
  absl::StatusOr<LocalGradient> g =
      ComputeLocalGradient(scorer_.item_factors(), scorer_.gram(), ratings,
                           {.lambda = config_.lambda,
                            .kappa = config_.kappa,
                            .user_l1_clip = config_.user_l1_clip,
                            .error_clip = config_.error_clip});
  if (!g.ok()) return g.status();
  local = *std::move(g);
  // F = w u^T is rank one, so S F = (S w) u^T: project the m-vector w only.
  if (!projection_.has_value()) return local.weights;
  absl::StatusOr<Eigen::MatrixXd> sw = projection_->Apply(local.weights);
  if (!sw.ok()) return sw.status();
  return Eigen::VectorXd(sw->col(0));
}

absl::StatusOr<Eigen::MatrixXd> DpmfRpContributor::ProjectedGradient(const data::RatingRow& ratings,
                                                                     LocalGradient* local) const {
  LocalGradient g;
  absl::StatusOr<Eigen::VectorXd> projected = ProjectedWeights(ratings, g);
  if (!projected.ok()) return projected.status();
  Eigen::MatrixXd x = *projected * g.clipped_factor.transpose();
  if (local != nullptr) *local = std::move(g);
  return x;
}

absl::Status DpmfRpContributor::CheckUser(const LocalData& data) {
  if (!data.is_party()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      "dpmf-rp contributions are per user (Algorithm 2); a silo party cannot contribute");
}

absl::StatusOr<Contribution> DpmfRpContributor::Contribute(const LocalData& data,
                                                           absl::string_view /*state*/,
                                                           dp::Rng& rng) const {
  if (absl::Status s = CheckUser(data); !s.ok()) return s;
  LocalGradient local;
  absl::StatusOr<Eigen::MatrixXd> x = ProjectedGradient(data.train, &local);
  if (!x.ok()) return x.status();
  absl::StatusOr<std::vector<uint64_t>> vector = codec_.Encode(*x, rng);
  if (!vector.ok()) return vector.status();
  return Contribution{.vector = ContributionVector::Dense(*std::move(vector)),
                      .state = {},  // stateless
                      .user_factor = std::move(local.user_factor)};
}

// The summed uploads of a round: X = (S w) u^T added as a rank-one update, so a user costs its
// gradient and p k multiply-adds instead of the dozen passes over p k values of its own upload.
class DpmfRpSum final : public ContributionSum {
 public:
  explicit DpmfRpSum(const DpmfRpContributor& contributor)
      : contributor_(contributor),
        sum_(Eigen::MatrixXd::Zero(contributor.codec().length() / contributor.config().rank,
                                   contributor.config().rank)) {}

  absl::StatusOr<Contribution> Add(const LocalData& data, absl::string_view /*state*/,
                                   dp::Rng& /*rng*/) override {
    return contributor_.AddToSum(data, sum_);
  }
  absl::StatusOr<ContributionVector> Encode(dp::Rng& rng) const override {
    absl::StatusOr<std::vector<uint64_t>> vector = contributor_.codec().EncodeSum(sum_, rng);
    if (!vector.ok()) return vector.status();
    return ContributionVector::Dense(*std::move(vector));
  }

 private:
  const DpmfRpContributor& contributor_;
  Eigen::MatrixXd sum_;  // p x k, real units
};

std::unique_ptr<ContributionSum> DpmfRpContributor::StartSum() const {
  if (!codec_.summed_uploads()) return nullptr;
  return std::make_unique<DpmfRpSum>(*this);
}

absl::StatusOr<Contribution> DpmfRpContributor::AddToSum(const LocalData& data,
                                                         Eigen::MatrixXd& sum) const {
  if (absl::Status s = CheckUser(data); !s.ok()) return s;
  LocalGradient local;
  absl::StatusOr<Eigen::VectorXd> projected = ProjectedWeights(data.train, local);
  if (!projected.ok()) return projected.status();
  if (absl::Status s = codec_.AddToSum(*projected, local.clipped_factor, sum); !s.ok()) return s;
  return Contribution{.vector = {}, .state = {}, .user_factor = std::move(local.user_factor)};
}

}  // namespace fedmf::algorithms::dpmf_rp
