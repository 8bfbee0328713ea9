#include "common/algorithms/dpmf_rp/updater.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/dpmf_rp/calibration.h"
#include "common/algorithms/matrix_proto.h"
#include "common/algorithms/start_model.h"
#include "common/dp/hashing.h"
#include "common/dp/rng.h"
#include "common/mf/factor_model.h"

namespace fedmf::algorithms::dpmf_rp {
namespace {

// Domain tags of the run's public seeds (common/dp/hashing.h derives independent streams).
constexpr uint64_t kTagProjectionSeed = 0x64706d662d532d73ULL;  // "dpmf-S-s"
constexpr uint64_t kTagHadamardSeed = 0x64706d662d442d78ULL;    // "dpmf-D-x"
constexpr uint64_t kTagSummedNoise = 0x64706d662d4e2d73ULL;     // "dpmf-N-s"

absl::StatusOr<std::optional<dp::SparseProjection>> MakeProjection(const DpmfRpConfig& config,
                                                                   uint64_t seed) {
  if (config.projection == Projection::kNone) return std::nullopt;
  absl::StatusOr<dp::SparseProjection> s =
      dp::SparseProjection::Create(config.num_items, ProjectedDim(config), seed);
  if (!s.ok()) return s.status();
  return std::optional<dp::SparseProjection>(*std::move(s));
}

// Output j of the stream `tag` of `seed`.
uint64_t PublicSeed(uint64_t seed, uint64_t tag, int64_t j) {
  return dp::SplitMix64At(dp::DeriveStreamKey(seed, tag), static_cast<uint64_t>(j));
}

}  // namespace

DpmfRpUpdater::DpmfRpUpdater(DpmfRpConfig config, v1::DpmfRpMechanism mechanism,
                             uint64_t projection_seed, Eigen::MatrixXd model, mf::Adam adam,
                             int64_t round)
    : config_(std::move(config)),
      mechanism_(std::move(mechanism)),
      projection_seed_(projection_seed),
      model_(std::move(model)),
      adam_(std::move(adam)),
      round_(round) {}

absl::StatusOr<std::unique_ptr<DpmfRpUpdater>> DpmfRpUpdater::Create(
    const DpmfRpConfig& config, std::optional<mf::FactorMatrix> start_items) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  if (start_items.has_value()) {
    if (absl::Status s =
            CheckStartItemFactors(*start_items, config.num_items, config.rank, kAlgorithmName);
        !s.ok()) {
      return s;
    }
  }
  // Round 0's S for the full model; the run's S for the compressed one.
  const uint64_t projection_seed = PublicSeed(config.seed, kTagProjectionSeed, 0);
  Eigen::MatrixXd model = start_items.has_value()
                              ? Eigen::MatrixXd(*std::move(start_items))
                              : Eigen::MatrixXd(mf::RandomFactors(config.num_items, config.rank,
                                                                  config.init_scale, config.seed));
  if (KeepsCompressedModel(config)) {
    absl::StatusOr<std::optional<dp::SparseProjection>> s = MakeProjection(config, projection_seed);
    if (!s.ok()) return s.status();
    absl::StatusOr<Eigen::MatrixXd> sv = (*s)->Apply(model);
    if (!sv.ok()) return sv.status();
    model = *std::move(sv);
  }
  absl::StatusOr<v1::DpmfRpMechanism> mechanism = CalibrateMechanism(config);
  if (!mechanism.ok()) return mechanism.status();
  absl::StatusOr<mf::Adam> adam = mf::Adam::Create(config.adam, model.rows(), model.cols());
  if (!adam.ok()) return adam.status();
  std::unique_ptr<DpmfRpUpdater> updater(new DpmfRpUpdater(
      config, *std::move(mechanism), projection_seed, std::move(model), *std::move(adam), 0));
  // Fails here, not in round 0, if the mechanism cannot be encoded (e.g. > 62-bit sums).
  if (absl::Status s = updater->Plan().status(); !s.ok()) return s;
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
  const int64_t rows = ModelRows(*config);
  absl::StatusOr<Eigen::MatrixXd> model =
      MatrixFromProto(proto.model(), rows, config->rank, "state model");
  if (!model.ok()) return model.status();
  absl::StatusOr<Eigen::MatrixXd> m =
      MatrixFromProto(proto.adam_first_moment(), rows, config->rank, "state Adam first moment");
  if (!m.ok()) return m.status();
  absl::StatusOr<Eigen::MatrixXd> v =
      MatrixFromProto(proto.adam_second_moment(), rows, config->rank, "state Adam second moment");
  if (!v.ok()) return v.status();
  absl::StatusOr<mf::Adam> adam =
      mf::Adam::Restore(config->adam, *std::move(m), *std::move(v), proto.adam_steps());
  if (!adam.ok()) return adam.status();
  std::unique_ptr<DpmfRpUpdater> updater(
      new DpmfRpUpdater(*std::move(config), proto.mechanism(), proto.projection_seed(),
                        *std::move(model), *std::move(adam), proto.round()));
  if (absl::Status s = updater->Plan().status(); !s.ok()) return s;
  return updater;
}

uint64_t DpmfRpUpdater::ProjectionSeed(int64_t round) const {
  if (config_.item_model == ItemModel::kCompressed) return projection_seed_;
  return PublicSeed(config_.seed, kTagProjectionSeed, round);
}

uint64_t DpmfRpUpdater::HadamardSeed(int64_t round) const {
  return PublicSeed(config_.seed, kTagHadamardSeed, round);
}

absl::StatusOr<std::optional<dp::SparseProjection>> DpmfRpUpdater::RoundProjection() const {
  return MakeProjection(config_, ProjectionSeed(round_));
}

absl::StatusOr<ContributionCodec> DpmfRpUpdater::RoundCodec(
    const std::optional<dp::SparseProjection>& projection) const {
  absl::StatusOr<v1::DpmfRpMechanism> mechanism = RoundMechanism(config_, mechanism_, round_);
  if (!mechanism.ok()) return mechanism.status();
  return ContributionCodec::Create(config_, *mechanism, HadamardSeed(round_),
                                   MaxBucketItems(projection));
}

absl::StatusOr<v1::RoundPlan> DpmfRpUpdater::Plan() const {
  absl::StatusOr<std::optional<dp::SparseProjection>> projection = RoundProjection();
  if (!projection.ok()) return projection.status();
  absl::StatusOr<ContributionCodec> codec = RoundCodec(*projection);
  if (!codec.ok()) return codec.status();
  v1::DpmfRpBroadcast broadcast;
  *broadcast.mutable_config() = ToProto(config_);
  broadcast.set_round(round_);
  *broadcast.mutable_model() = MatrixToProto(model_);
  broadcast.set_projection_seed(ProjectionSeed(round_));
  broadcast.set_hadamard_seed(HadamardSeed(round_));
  absl::StatusOr<v1::DpmfRpMechanism> mechanism = RoundMechanism(config_, mechanism_, round_);
  if (!mechanism.ok()) return mechanism.status();
  *broadcast.mutable_mechanism() = *std::move(mechanism);
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

absl::StatusOr<Eigen::MatrixXd> DpmfRpUpdater::GradientWith(
    const std::optional<dp::SparseProjection>& projection, const Eigen::MatrixXd& decoded_sum,
    int64_t contributors) const {
  const double scale =
      -2 * static_cast<double>(config_.num_users) / static_cast<double>(contributors);
  if (!projection.has_value())
    return Eigen::MatrixXd(scale * decoded_sum + 2 * config_.mu * model_);
  if (KeepsCompressedModel(config_)) {
    return Eigen::MatrixXd(scale * decoded_sum +
                           (2 * config_.mu) * (BucketItems(*projection).asDiagonal() * model_));
  }
  absl::StatusOr<Eigen::MatrixXd> lifted = projection->ApplyTranspose(decoded_sum);
  if (!lifted.ok()) return lifted.status();
  return Eigen::MatrixXd(scale * *lifted + 2 * config_.mu * model_);
}

absl::StatusOr<Eigen::MatrixXd> DpmfRpUpdater::Gradient(const Eigen::MatrixXd& decoded_sum,
                                                        int64_t contributors) const {
  absl::StatusOr<std::optional<dp::SparseProjection>> projection = RoundProjection();
  if (!projection.ok()) return projection.status();
  return GradientWith(*projection, decoded_sum, contributors);
}

absl::Status DpmfRpUpdater::ApplySum(absl::Span<const uint64_t> sum,
                                     absl::Span<const uint32_t> contributors) {
  const int64_t n = static_cast<int64_t>(contributors.size());
  absl::StatusOr<std::optional<dp::SparseProjection>> projection = RoundProjection();
  if (!projection.ok()) return projection.status();
  absl::StatusOr<ContributionCodec> codec = RoundCodec(*projection);
  if (!codec.ok()) return codec.status();
  std::vector<uint64_t> noisy;
  if (config_.simulation_summed_noise) {
    // Simulation only: the noise the users left out, drawn at once (reproducible from the seed).
    noisy.assign(sum.begin(), sum.end());
    dp::Rng rng(dp::DeriveStreamKey(config_.seed, kTagSummedNoise), static_cast<uint64_t>(round_));
    if (absl::Status s = codec->AddSummedNoise(absl::MakeSpan(noisy), n, rng); !s.ok()) return s;
    sum = noisy;
  }
  absl::StatusOr<Eigen::MatrixXd> decoded = codec->DecodeSum(sum, n);
  if (!decoded.ok()) return decoded.status();
  absl::StatusOr<Eigen::MatrixXd> gradient = GradientWith(*projection, *decoded, n);
  if (!gradient.ok()) return gradient.status();
  if (absl::Status s = adam_.Step(*gradient, model_); !s.ok()) return s;
  ++round_;
  return absl::OkStatus();
}

absl::StatusOr<std::optional<dp::LedgerEntry>> DpmfRpUpdater::RoundPrivacy(
    int64_t participants, const std::vector<double>& orders) const {
  absl::StatusOr<v1::DpmfRpMechanism> mechanism = RoundMechanism(config_, mechanism_, round_);
  if (!mechanism.ok()) return mechanism.status();
  return RoundLedgerEntry(config_, *mechanism, round_, participants, orders);
}

std::optional<dp::PrivacyBudget> DpmfRpUpdater::budget() const {
  if (config_.mechanism == Mechanism::kNone) return std::nullopt;
  return Budget(config_);
}

absl::StatusOr<mf::FactorMatrix> DpmfRpUpdater::ItemFactors() const {
  if (!KeepsCompressedModel(config_)) return mf::FactorMatrix(model_);
  absl::StatusOr<std::optional<dp::SparseProjection>> projection = RoundProjection();
  if (!projection.ok()) return projection.status();
  absl::StatusOr<Eigen::MatrixXd> v = (*projection)->ApplyTranspose(model_);
  if (!v.ok()) return v.status();
  return mf::FactorMatrix(*std::move(v));
}

absl::StatusOr<std::string> DpmfRpUpdater::SerializeState() const {
  v1::DpmfRpState state;
  *state.mutable_config() = ToProto(config_);
  state.set_round(round_);
  *state.mutable_model() = MatrixToProto(model_);
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
