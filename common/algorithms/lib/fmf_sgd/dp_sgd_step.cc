#include "common/algorithms/lib/fmf_sgd/dp_sgd_step.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/algorithms/lib/fmf_sgd/embedding_clip.h"
#include "common/dp/clipping.h"
#include "common/dp/samplers.h"

namespace fedmf::algorithms::fmf_sgd {
namespace {

// Scales the rows [first, last) of `g`, read as one vector, to L2 norm at most c (dp::ClipL2).
absl::Status ClipRows(Eigen::MatrixXd& g, Eigen::Index first, Eigen::Index last, double c) {
  // Row-major copy: the rows' entries side by side.
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  RowMajor block = g.middleRows(first, last - first);
  absl::StatusOr<Eigen::VectorXd> clipped =
      dp::ClipL2(Eigen::Map<const Eigen::VectorXd>(block.data(), block.size()), c);
  if (!clipped.ok()) return clipped.status();
  g.middleRows(first, last - first) =
      Eigen::Map<const RowMajor>(clipped->data(), block.rows(), block.cols());
  return absl::OkStatus();
}

void AddNoise(Eigen::MatrixXd& m, double stddev, dp::Rng& rng) {
  if (stddev == 0) return;
  for (Eigen::Index k = 0; k < m.size(); ++k) m.data()[k] += stddev * dp::StandardNormal(rng);
}

}  // namespace

absl::StatusOr<Eigen::MatrixXd> InitialEmbeddings(int32_t rows, const DpSgdMfConfig& config,
                                                  dp::Rng& rng) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  if (rows < 0) return absl::InvalidArgumentError(absl::StrCat("dp-sgdmf: rows=", rows, " < 0"));
  const double scale = std::sqrt(config.init_prediction / config.rank);
  Eigen::MatrixXd m(rows, config.rank);
  for (Eigen::Index k = 0; k < m.size(); ++k) {
    m.data()[k] = scale * (0.5 + dp::UniformUnit(rng));
  }
  if (config.clip == ClipMode::kEmbedding) {
    if (absl::Status s = ProjectRows(m, config.rating_max); !s.ok()) return s;
  }
  return m;
}

absl::Status CheckTrainingData(const data::RatingsDataset& train, const Embeddings& model,
                               const DpSgdMfConfig& config) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  if (model.users.rows() != train.num_users() || model.items.rows() != train.num_items() ||
      model.users.cols() != config.rank || model.items.cols() != config.rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("dp-sgdmf: embeddings ", model.users.rows(), "x", model.users.cols(), " and ",
                     model.items.rows(), "x", model.items.cols(), " do not fit ", train.num_users(),
                     " users, ", train.num_items(), " items and rank ", config.rank));
  }
  for (int32_t u = 0; u < train.num_users(); ++u) {
    const data::RatingRow row = train.user(u);
    if (config.unit == dp::PrivacyUnit::kUser && row.size() > config.max_ratings_per_user) {
      return absl::FailedPreconditionError(absl::StrCat(
          "dp-sgdmf: user ", train.user_id(u), " has ", row.size(),
          " ratings, more than theta=", config.max_ratings_per_user, ": trim the data first"));
    }
    if (config.clip != ClipMode::kEmbedding) continue;
    for (int64_t k = 0; k < row.size(); ++k) {
      const double r = row.ratings[k];
      if (!(r >= 0 && r <= config.rating_max)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "dp-sgdmf: rating of user ", train.user_id(u), " on item ",
            train.item_id(row.indices[k]), " is ", r, ", outside [0, R=", config.rating_max,
            "] that embedding clipping's sensitivity assumes"));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<NoisyGradient> NoisyGradientSum(const data::RatingsDataset& train,
                                               const Embeddings& model, const DpSgdMfConfig& config,
                                               bool update_users, dp::Rng& rng) {
  const int p = config.rank;
  const bool clip_ratings =
      config.clip == ClipMode::kGradient && config.unit == dp::PrivacyUnit::kRating;
  const bool clip_users =
      config.clip == ClipMode::kGradient && config.unit == dp::PrivacyUnit::kUser;
  NoisyGradient out;
  if (update_users) out.users = Eigen::MatrixXd::Zero(model.users.rows(), p);
  out.items = Eigen::MatrixXd::Zero(model.items.rows(), p);
  // Row 0 the user's gradient, row 1 + k that of the k-th rated item's embedding.
  Eigen::MatrixXd g;
  const Eigen::Index first = update_users ? 0 : 1;  // the rows the unit's gradient has
  for (int32_t u = 0; u < train.num_users(); ++u) {
    if (!dp::Bernoulli(rng, config.sampling_rate)) continue;
    out.sampled.push_back(u);
    const data::RatingRow row = train.user(u);
    g.setZero(row.size() + 1, p);
    for (int64_t k = 0; k < row.size(); ++k) {
      const int32_t j = row.indices[k];
      const double e = row.ratings[k] - model.users.row(u).dot(model.items.row(j));
      g.row(k + 1) = -2 * e * model.users.row(u);
      if (clip_ratings) {
        Eigen::MatrixXd one(2, p);
        one.row(0) = -2 * e * model.items.row(j);
        one.row(1) = g.row(k + 1);
        if (absl::Status s = ClipRows(one, first, 2, config.gradient_clip); !s.ok()) return s;
        g.row(k + 1) = one.row(1);
        g.row(0) += one.row(0);
      } else {
        g.row(0) += -2 * e * model.items.row(j);
      }
    }
    if (clip_users) {
      if (absl::Status s = ClipRows(g, first, g.rows(), config.gradient_clip); !s.ok()) return s;
    }
    if (update_users) out.users.row(u) += g.row(0);
    for (int64_t k = 0; k < row.size(); ++k) out.items.row(row.indices[k]) += g.row(k + 1);
  }
  out.noise_stddev = config.noise_multiplier * StepSensitivity(config, update_users);
  // Every coordinate, sampled or not: where the noise falls must not tell who was sampled.
  AddNoise(out.users, out.noise_stddev, rng);
  AddNoise(out.items, out.noise_stddev, rng);
  return out;
}

absl::Status ApplyStep(const NoisyGradient& gradient, const DpSgdMfConfig& config, int64_t step,
                       double item_weight, Embeddings& model) {
  if (!(std::isfinite(item_weight) && item_weight > 0 && item_weight <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("dp-sgdmf: item_weight=", item_weight, " must be in (0, 1]"));
  }
  const double batch = config.sampling_rate * static_cast<double>(model.users.rows());
  const double rate = LearningRate(config, step) / batch;
  const bool project = config.clip == ClipMode::kEmbedding;
  if (gradient.users.size() > 0) {
    model.users -= rate * gradient.users;
    if (project) {
      if (absl::Status s = ProjectRows(model.users, config.rating_max); !s.ok()) return s;
    }
  }
  model.items -= rate * item_weight * gradient.items;
  if (project) return ProjectRows(model.items, config.rating_max);
  return absl::OkStatus();
}

absl::Status RunNoisySteps(
    const data::RatingsDataset& train, const DpSgdMfConfig& config, int64_t first_step,
    int64_t count, bool update_users, double item_weight, dp::Rng& rng, Embeddings& model,
    const std::function<absl::Status(int64_t, const NoisyGradient&)>& on_step) {
  for (int64_t step = first_step; step < first_step + count; ++step) {
    absl::StatusOr<NoisyGradient> gradient =
        NoisyGradientSum(train, model, config, update_users, rng);
    if (!gradient.ok()) return gradient.status();
    if (absl::Status s = ApplyStep(*gradient, config, step, item_weight, model); !s.ok()) return s;
    if (on_step) {
      if (absl::Status s = on_step(step, *gradient); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

double MeanSquaredError(const data::RatingsDataset& ratings, const Embeddings& model) {
  double sum = 0;
  for (int32_t u = 0; u < ratings.num_users(); ++u) {
    const data::RatingRow row = ratings.user(u);
    for (int64_t k = 0; k < row.size(); ++k) {
      const double e = row.ratings[k] - model.users.row(u).dot(model.items.row(row.indices[k]));
      sum += e * e;
    }
  }
  return ratings.num_ratings() > 0 ? sum / static_cast<double>(ratings.num_ratings()) : 0;
}

}  // namespace fedmf::algorithms::fmf_sgd
