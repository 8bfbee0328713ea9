#include "common/algorithms/lfl_sgdmf/contributor.h"

#include <array>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/lfl_sgdmf/lfl_sgdmf.h"
#include "common/algorithms/lib/fmf_sgd/embedding_clip.h"
#include "common/algorithms/matrix_proto.h"
#include "common/algorithms/plan_check.h"
#include "common/dp/samplers.h"

namespace fedmf::algorithms::lfl_sgdmf {
namespace {

constexpr size_t kKeyBytes = 32;

// xi: `dim` draws of N(0, variance) from the key's stream, the same on every call.
Eigen::VectorXd PhaseNoise(const std::string& key, int64_t dim, double variance) {
  std::array<uint8_t, kKeyBytes> bytes;
  std::copy(key.begin(), key.end(), bytes.begin());
  dp::Rng stream = dp::Rng::FromKey(bytes);
  const double std = std::sqrt(variance);
  Eigen::VectorXd xi(dim);
  for (Eigen::Index k = 0; k < dim; ++k) xi[k] = std * dp::StandardNormal(stream);
  return xi;
}

std::string FreshKey(dp::Rng& rng) {
  std::string key(kKeyBytes, '\0');
  for (size_t k = 0; k < kKeyBytes; k += 8) {
    const uint64_t word = rng();
    for (size_t b = 0; b < 8; ++b) key[k + b] = static_cast<char>(word >> (8 * b));
  }
  return key;
}

absl::Status CheckRatings(const data::RatingRow& ratings, int32_t num_items, double rating_max) {
  for (int64_t k = 0; k < ratings.size(); ++k) {
    const int32_t item = ratings.indices[k];
    const double r = ratings.ratings[k];
    if (item < 0 || item >= num_items) {
      return absl::InvalidArgumentError(
          absl::StrCat("lfl-sgdmf: rated item ", item, " outside [0, ", num_items, ")"));
    }
    // The sensitivity 2 R^{3/2} needs every rating in [0, R].
    if (!(r >= 0 && r <= rating_max)) {
      return absl::InvalidArgumentError(absl::StrCat("lfl-sgdmf: rating ", r, " of item ", item,
                                                     " outside [0, ", rating_max, "]"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::optional<v1::LflSgdmfUserState>> DecodeUserState(absl::string_view state,
                                                                     int rank) {
  if (state.empty()) return std::nullopt;
  v1::LflSgdmfUserState decoded;
  if (!decoded.ParseFromString(std::string(state)) || decoded.user_factor_size() != rank ||
      (!decoded.noise_seed().empty() && decoded.noise_seed().size() != kKeyBytes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "lfl-sgdmf participant state is not an LflSgdmfUserState with ", rank, " factors"));
  }
  for (double x : decoded.user_factor()) {
    if (!std::isfinite(x)) {
      return absl::InvalidArgumentError("lfl-sgdmf participant state: a non-finite user factor");
    }
  }
  return decoded;
}

Eigen::VectorXd PretrainUserFactor(const mf::FactorMatrix& item_factors,
                                   Eigen::VectorXd user_factor, const data::RatingRow& ratings,
                                   int epochs, double rate, double rating_max) {
  for (int epoch = 0; epoch < epochs; ++epoch) {
    for (int64_t k = 0; k < ratings.size(); ++k) {
      const Eigen::VectorXd v = item_factors.row(ratings.indices[k]).transpose();
      const double residual = ratings.ratings[k] - user_factor.dot(v);
      // Valid inputs (finite, rating_max > 0) cannot make the projection fail.
      user_factor = *fmf_sgd::ProjectEmbedding(user_factor + 2 * rate * residual * v, rating_max);
    }
  }
  return user_factor;
}

absl::StatusOr<std::unique_ptr<LflSgdmfContributor>> LflSgdmfContributor::Create(
    const v1::RoundPlan& plan) {
  absl::StatusOr<v1::LflSgdmfBroadcast> parsed =
      ParsePlanPayload<v1::LflSgdmfBroadcast>(plan, kAlgorithmName);
  if (!parsed.ok()) return parsed.status();
  v1::LflSgdmfBroadcast& broadcast = *parsed;
  const v1::LflSgdmfConfig& c = broadcast.config();
  if (absl::Status s = ValidateConfig(c); !s.ok()) return s;
  const int max_phase = HasPhase1(c) ? 1 : 0;
  if (broadcast.phase() < 0 || broadcast.phase() > max_phase) {
    return PlanMismatch(kAlgorithmName, "phase", broadcast.phase(), max_phase);
  }
  // Phase 1 needs no V (its upload is noise only) and the users hold it from phase 0.
  mf::FactorMatrix item_factors(0, c.rank());
  if (broadcast.phase() == 0) {
    absl::StatusOr<Eigen::MatrixXd> v = MatrixFromProto(broadcast.item_factors(), c.num_items(),
                                                        c.rank(), "lfl-sgdmf item factors");
    if (!v.ok()) return v.status();
    item_factors = *std::move(v);
  } else if (broadcast.has_item_factors()) {
    return absl::InvalidArgumentError(
        "lfl-sgdmf round plan: phase 1 carries item factors; it must not (the users hold V from "
        "phase 0)");
  }
  absl::StatusOr<int> bits = SumBits(c);
  if (!bits.ok()) return bits.status();
  // Phase 0's noise protects a user only in a sum of at least n_min; phase 1 must name the
  // survivors' count its noise was scaled to.
  ExpectedPlan expected = {.round = broadcast.round(),
                           .phase = broadcast.phase(),
                           .length = UploadLength(c),
                           .bits = *bits};
  if (broadcast.phase() == 0) expected.min_contributors_at_least = c.min_contributors();
  if (absl::Status s = CheckPlanEnvelope(plan, kAlgorithmName, expected); !s.ok()) return s;
  if (broadcast.phase() == 1 && (broadcast.phase1_survivors() < c.min_contributors() ||
                                 broadcast.phase1_survivors() > c.cohort_size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("lfl-sgdmf round plan: phase1_survivors=", broadcast.phase1_survivors(),
                     ", expected ", c.min_contributors(), "..", c.cohort_size()));
  }
  return std::unique_ptr<LflSgdmfContributor>(
      new LflSgdmfContributor(std::move(broadcast), std::move(item_factors)));
}

LflSgdmfContributor::LflSgdmfContributor(v1::LflSgdmfBroadcast broadcast,
                                         mf::FactorMatrix item_factors)
    : broadcast_(std::move(broadcast)),
      scorer_(std::move(item_factors), broadcast_.config().score_lambda(),
              broadcast_.config().score_kappa(),
              RatingScale{.min = 0, .max = broadcast_.config().rating_max()}) {}

absl::StatusOr<Contribution> LflSgdmfContributor::Contribute(const LocalData& data,
                                                             absl::string_view state,
                                                             dp::Rng& rng) const {
  if (data.is_party()) {
    return absl::InvalidArgumentError(
        "lfl-sgdmf is cross-device, one user per participant: a silo party cannot contribute");
  }
  absl::StatusOr<std::optional<v1::LflSgdmfUserState>> decoded =
      DecodeUserState(state, broadcast_.config().rank());
  if (!decoded.ok()) return decoded.status();
  if (broadcast_.phase() == 1) return NoiseReplacement(*std::move(decoded), rng);
  return GradientUpload(data, *std::move(decoded), rng);
}

absl::StatusOr<Contribution> LflSgdmfContributor::GradientUpload(
    const LocalData& data, std::optional<v1::LflSgdmfUserState> state, dp::Rng& rng) const {
  const v1::LflSgdmfConfig& c = broadcast_.config();
  if (absl::Status s = CheckRatings(data.train, c.num_items(), c.rating_max()); !s.ok()) return s;
  const mf::FactorMatrix& v = scorer_.item_factors();
  Eigen::VectorXd u;
  if (state.has_value()) {
    u = Eigen::Map<const Eigen::VectorXd>(state->user_factor().data(), c.rank());
  } else {
    u = PretrainUserFactor(v, InitialUserFactor(c, data.participant_id), data.train,
                           c.pretrain_epochs(), c.pretrain_learning_rate(), c.rating_max());
  }
  // The gradient of one sampled rating (i, j): row j of the m x p upload, the rest zero.
  int32_t row = -1;
  Eigen::VectorXd gradient;
  if (data.train.size() > 0) {
    const auto k =
        static_cast<int64_t>(dp::UniformInt(rng, static_cast<uint64_t>(data.train.size())));
    row = data.train.indices[k];
    const double residual = data.train.ratings[k] - u.dot(v.row(row));
    // d/dv_j (r - <u, v_j>)^2 = -2 (r - <u, v_j>) u: norm <= 2 R^{3/2} for u, v_j in Pi's set.
    gradient = -2 * residual * u;
  }
  v1::LflSgdmfUserState next;
  next.mutable_user_factor()->Add(u.data(), u.data() + u.size());
  if (c.simulation_summed_noise()) {
    // The coordinator draws the noise (lfl_sgdmf.h): only row j goes up. The noise round marks
    // the phase 1 this user answers (with nothing).
    if (HasPhase1(c)) next.set_noise_round(broadcast_.round());
    std::vector<uint64_t> indices;
    std::vector<uint64_t> values;
    if (row >= 0) {
      absl::StatusOr<std::vector<uint64_t>> encoded = EncodeUpload(c, gradient, rng);
      if (!encoded.ok()) return encoded.status();
      values = *std::move(encoded);
      for (int l = 0; l < c.rank(); ++l)
        indices.push_back(static_cast<uint64_t>(row) * c.rank() + l);
    }
    return Contribution{.vector = ContributionVector::Sparse(std::move(indices), std::move(values)),
                        .state = next.SerializeAsString(),
                        .user_factor = std::move(u)};
  }
  // Row-major m x p, as V: coordinate j p + k is entry (j, k).
  Eigen::VectorXd upload = Eigen::VectorXd::Zero(UploadLength(c));
  if (row >= 0) upload.segment(int64_t{row} * c.rank(), c.rank()) = gradient;
  if (c.noise() != v1::LFL_NOISE_NONE) {
    const std::string key = FreshKey(rng);
    upload += PhaseNoise(key, upload.size(), Phase0Variance(c));
    if (HasPhase1(c)) {
      next.set_noise_round(broadcast_.round());
      next.set_noise_seed(key);
    }
  }
  absl::StatusOr<std::vector<uint64_t>> encoded = EncodeUpload(c, upload, rng);
  if (!encoded.ok()) return encoded.status();
  return Contribution{.vector = ContributionVector::Dense(*std::move(encoded)),
                      .state = next.SerializeAsString(),
                      .user_factor = std::move(u)};
}

absl::StatusOr<Contribution> LflSgdmfContributor::NoiseReplacement(
    std::optional<v1::LflSgdmfUserState> state, dp::Rng& rng) const {
  const v1::LflSgdmfConfig& c = broadcast_.config();
  // Summed noise: the coordinator draws the replacement, the user marks its phase 1 answered.
  const bool summed = c.simulation_summed_noise();
  if (!state.has_value() || (!summed && state->noise_seed().empty()) ||
      state->noise_round() != broadcast_.round()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "lfl-sgdmf phase 1 of round ", broadcast_.round(),
        ": this device holds no phase-0 noise of that round (it did not contribute to phase 0, "
        "or lost its state)"));
  }
  ContributionVector vector = ContributionVector::Sparse({}, {});
  if (summed) {
    state->set_noise_round(-1);
  } else {
    const int64_t dim = UploadLength(c);
    const Eigen::VectorXd replacement =
        PhaseNoise(state->noise_seed(), dim, Phase0Variance(c)) * -1 +
        PhaseNoise(FreshKey(rng), dim, Phase1Variance(c, broadcast_.phase1_survivors()));
    absl::StatusOr<std::vector<uint64_t>> encoded = EncodeUpload(c, replacement, rng);
    if (!encoded.ok()) return encoded.status();
    vector = ContributionVector::Dense(*std::move(encoded));
    // The key has done its job: a retried phase 1 must not replay it.
    state->clear_noise_seed();
  }
  Eigen::VectorXd u = Eigen::Map<const Eigen::VectorXd>(state->user_factor().data(), c.rank());
  return Contribution{.vector = std::move(vector),
                      .state = state->SerializeAsString(),
                      .user_factor = std::move(u)};
}

}  // namespace fedmf::algorithms::lfl_sgdmf
