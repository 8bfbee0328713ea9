#include "common/algorithms/dpmf_rp/updater.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/algorithms/dpmf_rp/calibration.h"
#include "common/algorithms/matrix_proto.h"
#include "common/dp/hashing.h"
#include "common/mf/factor_model.h"

namespace fedmf::algorithms::dpmf_rp {
namespace {

// Domain tags of the run's public seeds (common/dp/hashing.h derives independent streams).
constexpr uint64_t kTagProjectionSeed = 0x64706d662d532d73ULL;  // "dpmf-S-s"
constexpr uint64_t kTagHadamardSeed = 0x64706d662d442d78ULL;    // "dpmf-D-x"

absl::StatusOr<std::optional<dp::SparseProjection>> MakeProjection(const DpmfRpConfig& config,
                                                                   uint64_t seed) {
  if (config.projection == Projection::kNone) return std::nullopt;
  absl::StatusOr<dp::SparseProjection> s =
      dp::SparseProjection::Create(config.num_items, ProjectedDim(config), seed);
  if (!s.ok()) return s.status();
  return std::optional<dp::SparseProjection>(*std::move(s));
}

Eigen::VectorXd BucketItems(const DpmfRpConfig& config,
                            const std::optional<dp::SparseProjection>& projection) {
  if (!projection.has_value()) return Eigen::VectorXd::Ones(config.num_items);
  Eigen::VectorXd counts = Eigen::VectorXd::Zero(projection->output_dim());
  for (int64_t j = 0; j < projection->input_dim(); ++j) counts[projection->bucket(j)] += 1;
  return counts;
}

}  // namespace

DpmfRpUpdater::DpmfRpUpdater(DpmfRpConfig config, v1::DpmfRpMechanism mechanism,
                             uint64_t projection_seed,
                             std::optional<dp::SparseProjection> projection, Eigen::MatrixXd b,
                             mf::Adam adam, int64_t round)
    : config_(std::move(config)),
      mechanism_(std::move(mechanism)),
      projection_seed_(projection_seed),
      projection_(std::move(projection)),
      bucket_items_(BucketItems(config_, projection_)),
      b_(std::move(b)),
      adam_(std::move(adam)),
      round_(round) {}

absl::StatusOr<std::unique_ptr<DpmfRpUpdater>> DpmfRpUpdater::Create(const DpmfRpConfig& config) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  const uint64_t projection_seed =
      dp::SplitMix64At(dp::DeriveStreamKey(config.seed, kTagProjectionSeed), 0);
  absl::StatusOr<std::optional<dp::SparseProjection>> projection =
      MakeProjection(config, projection_seed);
  if (!projection.ok()) return projection.status();
  const Eigen::MatrixXd v0 =
      mf::RandomFactors(config.num_items, config.rank, config.init_scale, config.seed);
  Eigen::MatrixXd b = v0;
  if (projection->has_value()) {
    absl::StatusOr<Eigen::MatrixXd> sv = (*projection)->Apply(v0);
    if (!sv.ok()) return sv.status();
    b = *std::move(sv);
  }
  const int64_t max_bucket_items =
      static_cast<int64_t>(BucketItems(config, *projection).maxCoeff());
  absl::StatusOr<v1::DpmfRpMechanism> mechanism = CalibrateMechanism(config, max_bucket_items);
  if (!mechanism.ok()) return mechanism.status();
  absl::StatusOr<mf::Adam> adam = mf::Adam::Create(config.adam, b.rows(), b.cols());
  if (!adam.ok()) return adam.status();
  std::unique_ptr<DpmfRpUpdater> updater(new DpmfRpUpdater(config, *std::move(mechanism),
                                                           projection_seed, *std::move(projection),
                                                           std::move(b), *std::move(adam), 0));
  // Fails here, not in round 0, if the mechanism cannot be encoded (e.g. > 62-bit sums).
  if (absl::StatusOr<ContributionCodec> codec = updater->RoundCodec(); !codec.ok()) {
    return codec.status();
  }
  return updater;
}

absl::StatusOr<std::unique_ptr<DpmfRpUpdater>> DpmfRpUpdater::Restore(absl::string_view state) {
  v1::DpmfRpState proto;
  if (!proto.ParseFromArray(state.data(), static_cast<int>(state.size()))) {
    return absl::DataLossError("dpmf-rp state: not a fedmf.v1.DpmfRpState protobuf");
  }
  absl::StatusOr<DpmfRpConfig> config = FromProto(proto.config(), "dpmf-rp state");
  if (!config.ok()) return config.status();
  if (proto.round() < 0 || proto.adam_steps() < 0) {
    return absl::DataLossError(absl::StrCat("dpmf-rp state: round=", proto.round(),
                                            " adam_steps=", proto.adam_steps(), " are negative"));
  }
  const int64_t p = ProjectedDim(*config);
  absl::StatusOr<Eigen::MatrixXd> b = MatrixFromProto(proto.b(), p, config->rank, "state B");
  if (!b.ok()) return b.status();
  absl::StatusOr<Eigen::MatrixXd> m =
      MatrixFromProto(proto.adam_first_moment(), p, config->rank, "state Adam first moment");
  if (!m.ok()) return m.status();
  absl::StatusOr<Eigen::MatrixXd> v =
      MatrixFromProto(proto.adam_second_moment(), p, config->rank, "state Adam second moment");
  if (!v.ok()) return v.status();
  absl::StatusOr<mf::Adam> adam =
      mf::Adam::Restore(config->adam, *std::move(m), *std::move(v), proto.adam_steps());
  if (!adam.ok()) return adam.status();
  absl::StatusOr<std::optional<dp::SparseProjection>> projection =
      MakeProjection(*config, proto.projection_seed());
  if (!projection.ok()) return projection.status();
  std::unique_ptr<DpmfRpUpdater> updater(
      new DpmfRpUpdater(*std::move(config), proto.mechanism(), proto.projection_seed(),
                        *std::move(projection), *std::move(b), *std::move(adam), proto.round()));
  if (absl::StatusOr<ContributionCodec> codec = updater->RoundCodec(); !codec.ok()) {
    return codec.status();
  }
  return updater;
}

uint64_t DpmfRpUpdater::HadamardSeed(int64_t round) const {
  return dp::SplitMix64At(dp::DeriveStreamKey(config_.seed, kTagHadamardSeed),
                          static_cast<uint64_t>(round));
}

absl::StatusOr<ContributionCodec> DpmfRpUpdater::RoundCodec() const {
  return ContributionCodec::Create(config_, mechanism_, HadamardSeed(round_));
}

absl::StatusOr<v1::RoundPlan> DpmfRpUpdater::Plan() const {
  absl::StatusOr<ContributionCodec> codec = RoundCodec();
  if (!codec.ok()) return codec.status();
  v1::DpmfRpBroadcast broadcast;
  *broadcast.mutable_config() = ToProto(config_);
  broadcast.set_round(round_);
  *broadcast.mutable_b() = MatrixToProto(b_);
  broadcast.set_projection_seed(projection_seed_);
  broadcast.set_hadamard_seed(HadamardSeed(round_));
  *broadcast.mutable_mechanism() = mechanism_;
  v1::RoundPlan plan;
  plan.set_algorithm(std::string(kAlgorithmName));
  plan.set_round(round_);
  if (!broadcast.SerializeToString(plan.mutable_payload())) {
    return absl::InternalError("dpmf-rp: cannot serialize the broadcast");
  }
  plan.set_length(static_cast<uint64_t>(codec->length()));
  plan.set_bits(codec->bits());
  plan.set_client_bits(codec->client_bits());
  plan.set_combination(config_.secure_aggregation ? v1::COMBINATION_SECURE_SUM
                                                  : v1::COMBINATION_CLEAR);
  plan.set_min_contributors(codec->min_contributors());
  plan.set_max_contributors(codec->max_contributors());
  return plan;
}

Eigen::MatrixXd DpmfRpUpdater::Gradient(const Eigen::MatrixXd& decoded_sum,
                                        int64_t contributors) const {
  const double scale =
      -2 * static_cast<double>(config_.num_users) / static_cast<double>(contributors);
  return scale * decoded_sum + (2 * config_.mu) * (bucket_items_.asDiagonal() * b_);
}

absl::Status DpmfRpUpdater::ApplySum(absl::Span<const uint64_t> sum, int64_t contributors) {
  absl::StatusOr<ContributionCodec> codec = RoundCodec();
  if (!codec.ok()) return codec.status();
  absl::StatusOr<Eigen::MatrixXd> decoded = codec->DecodeSum(sum, contributors);
  if (!decoded.ok()) return decoded.status();
  if (absl::Status s = adam_.Step(Gradient(*decoded, contributors), b_); !s.ok()) return s;
  ++round_;
  return absl::OkStatus();
}

absl::StatusOr<std::optional<dp::LedgerEntry>> DpmfRpUpdater::RoundPrivacy(
    int64_t participants, const std::vector<double>& orders) const {
  return RoundLedgerEntry(config_, mechanism_, round_, participants, orders);
}

std::optional<dp::PrivacyBudget> DpmfRpUpdater::budget() const {
  if (config_.mechanism == Mechanism::kNone) return std::nullopt;
  return Budget(config_);
}

absl::StatusOr<mf::FactorMatrix> DpmfRpUpdater::ItemFactors() const {
  if (!projection_.has_value()) return mf::FactorMatrix(b_);
  absl::StatusOr<Eigen::MatrixXd> v = projection_->ApplyTranspose(b_);
  if (!v.ok()) return v.status();
  return mf::FactorMatrix(*std::move(v));
}

absl::StatusOr<std::string> DpmfRpUpdater::SerializeState() const {
  v1::DpmfRpState state;
  *state.mutable_config() = ToProto(config_);
  state.set_round(round_);
  *state.mutable_b() = MatrixToProto(b_);
  *state.mutable_adam_first_moment() = MatrixToProto(adam_.first_moment());
  *state.mutable_adam_second_moment() = MatrixToProto(adam_.second_moment());
  state.set_adam_steps(adam_.steps());
  *state.mutable_mechanism() = mechanism_;
  state.set_projection_seed(projection_seed_);
  std::string bytes;
  if (!state.SerializeToString(&bytes)) {
    return absl::InternalError("dpmf-rp: cannot serialize the state");
  }
  return bytes;
}

}  // namespace fedmf::algorithms::dpmf_rp
