#include "common/algorithms/dpmf_rp/config.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/dp/hadamard.h"
#include "common/util/positive_finite.h"

namespace fedmf::algorithms::dpmf_rp {

namespace {

absl::Status Bad(absl::string_view field, double value, absl::string_view requirement) {
  return absl::InvalidArgumentError(
      absl::StrCat("dpmf-rp config: ", field, "=", value, " ", requirement));
}

}  // namespace

absl::string_view MechanismName(Mechanism mechanism) {
  switch (mechanism) {
    case Mechanism::kPbm:
      return "pbm";
    case Mechanism::kGaussian:
      return "gaussian";
    case Mechanism::kNone:
      return "none";
    case Mechanism::kDdg:
      return "ddg";
  }
  return "unknown";
}

absl::StatusOr<Mechanism> ParseMechanism(absl::string_view name) {
  for (Mechanism m : {Mechanism::kPbm, Mechanism::kGaussian, Mechanism::kNone, Mechanism::kDdg}) {
    if (name == MechanismName(m)) return m;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown mechanism '", name, "' (expected pbm, gaussian, ddg or none)"));
}

absl::string_view ProjectionName(Projection projection) {
  return projection == Projection::kSparse ? "sparse" : "none";
}

absl::StatusOr<Projection> ParseProjection(absl::string_view name) {
  if (name == "sparse") return Projection::kSparse;
  if (name == "none") return Projection::kNone;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown projection '", name, "' (expected sparse or none)"));
}

absl::string_view ItemModelName(ItemModel model) {
  return model == ItemModel::kCompressed ? "compressed" : "full";
}

absl::StatusOr<ItemModel> ParseItemModel(absl::string_view name) {
  if (name == "compressed") return ItemModel::kCompressed;
  if (name == "full") return ItemModel::kFull;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown item model '", name, "' (expected compressed or full)"));
}

absl::string_view PbmGeometryName(PbmGeometry geometry) {
  return geometry == PbmGeometry::kColumnL1 ? "column_l1" : "rotated_l2";
}

absl::StatusOr<PbmGeometry> ParsePbmGeometry(absl::string_view name) {
  if (name == "column_l1") return PbmGeometry::kColumnL1;
  if (name == "rotated_l2") return PbmGeometry::kRotatedL2;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown PBM geometry '", name, "' (expected column_l1 or rotated_l2)"));
}

absl::string_view PbmAccountingName(PbmAccounting accounting) {
  return accounting == PbmAccounting::kCoordinate ? "coordinate" : "l2";
}

absl::StatusOr<PbmAccounting> ParsePbmAccounting(absl::string_view name) {
  if (name == "coordinate") return PbmAccounting::kCoordinate;
  if (name == "l2") return PbmAccounting::kL2;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown PBM accounting '", name, "' (expected coordinate or l2)"));
}

absl::string_view NoiseScheduleName(NoiseSchedule schedule) {
  return schedule == NoiseSchedule::kConstant ? "constant" : "prefix_sum";
}

absl::StatusOr<NoiseSchedule> ParseNoiseSchedule(absl::string_view name) {
  if (name == "constant") return NoiseSchedule::kConstant;
  if (name == "prefix_sum") return NoiseSchedule::kPrefixSum;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown noise schedule '", name, "' (expected constant or prefix_sum)"));
}

absl::Status ValidateConfig(const DpmfRpConfig& c) {
  if (c.num_items < 1) return Bad("num_items", c.num_items, "must be >= 1");
  if (c.num_users < 1) return Bad("num_users", static_cast<double>(c.num_users), "must be >= 1");
  if (c.rank < 1 || c.rank > 1024) return Bad("rank", c.rank, "must be in [1, 1024]");
  if (!IsPositiveFinite(c.lambda)) return Bad("lambda", c.lambda, "must be > 0");
  if (!std::isfinite(c.mu) || c.mu < 0) return Bad("mu", c.mu, "must be >= 0");
  if (!std::isfinite(c.kappa) || c.kappa < 0) return Bad("kappa", c.kappa, "must be >= 0");
  if (c.ranking_kappa && (!std::isfinite(*c.ranking_kappa) || *c.ranking_kappa < 0)) {
    return Bad("ranking_kappa", *c.ranking_kappa, "must be >= 0");
  }
  if (absl::Status s = c.rating_scale.Validate(); !s.ok()) return s;
  if (!IsPositiveFinite(c.user_l1_clip)) return Bad("user_l1_clip", c.user_l1_clip, "must be > 0");
  if (!IsPositiveFinite(c.error_clip)) return Bad("error_clip", c.error_clip, "must be > 0");
  if (!std::isfinite(c.compression) || c.compression < 1) {
    return Bad("compression", c.compression, "must be >= 1");
  }
  if (!(c.participation > 0 && c.participation <= 1)) {
    return Bad("participation", c.participation, "must be in (0, 1]");
  }
  if (c.min_clients < 0 || c.min_clients > CohortSize(c)) {
    return Bad("min_clients", static_cast<double>(c.min_clients),
               absl::StrCat("must be in [0, cohort size ", CohortSize(c), "]"));
  }
  if (!std::isfinite(c.contribution_clip) || c.contribution_clip < 0) {
    return Bad("contribution_clip", c.contribution_clip, "must be >= 0 (0: the default)");
  }
  if (!IsPositiveFinite(c.pbm_clip_multiplier)) {
    return Bad("pbm_clip_multiplier", c.pbm_clip_multiplier, "must be > 0");
  }
  if (!IsPositiveFinite(c.epsilon)) return Bad("epsilon", c.epsilon, "must be > 0");
  if (!(c.delta >= 0 && c.delta < 1)) return Bad("delta", c.delta, "must be in [0, 1)");
  if (!(std::isfinite(c.rdp_order) && c.rdp_order > 1)) {
    return Bad("rdp_order", c.rdp_order, "must be > 1");
  }
  if (c.rounds < 1) return Bad("rounds", static_cast<double>(c.rounds), "must be >= 1");
  if (c.noise_schedule != NoiseSchedule::kConstant && c.mechanism != Mechanism::kGaussian) {
    return absl::InvalidArgumentError(
        absl::StrCat("dpmf-rp: noise_schedule=", NoiseScheduleName(c.noise_schedule),
                     " needs mechanism=gaussian, got ", MechanismName(c.mechanism)));
  }
  if (c.max_q < 1 || c.max_q > (int64_t{1} << 32)) {
    return Bad("max_q", static_cast<double>(c.max_q), "must be in [1, 2^32]");
  }
  if (c.fixed_point_bits < 0 || c.fixed_point_bits > 40) {
    return Bad("fixed_point_bits", c.fixed_point_bits, "must be in [0, 40]");
  }
  if (!(c.wrap_probability > 0 && c.wrap_probability < 1)) {
    return Bad("wrap_probability", c.wrap_probability, "must be in (0, 1)");
  }
  if (c.ddg_bits < 2 || c.ddg_bits > 62) return Bad("ddg_bits", c.ddg_bits, "must be in [2, 62]");
  if (!IsPositiveFinite(c.ddg_clip_multiplier)) {
    return Bad("ddg_clip_multiplier", c.ddg_clip_multiplier, "must be > 0");
  }
  if (absl::Status s = mf::ValidateAdamConfig(c.adam); !s.ok()) return s;
  if (!std::isfinite(c.init_scale) || c.init_scale < 0) {
    return Bad("init_scale", c.init_scale, "must be >= 0");
  }
  if (c.simulation_summed_noise && (c.mechanism != Mechanism::kGaussian || !c.secure_aggregation)) {
    return absl::InvalidArgumentError(
        "dpmf-rp: simulation_summed_noise needs the Gaussian mechanism and secure sums (the "
        "noise of a sum of Gaussian shares is what it draws at once)");
  }
  return absl::OkStatus();
}

int64_t ProjectedDim(const DpmfRpConfig& config) {
  if (config.projection == Projection::kNone) return config.num_items;
  const auto p = static_cast<int64_t>(std::ceil(config.num_items / config.compression));
  return std::clamp<int64_t>(p, 1, config.num_items);
}

bool KeepsCompressedModel(const DpmfRpConfig& config) {
  return config.projection == Projection::kSparse && config.item_model == ItemModel::kCompressed;
}

int64_t ModelRows(const DpmfRpConfig& config) {
  return KeepsCompressedModel(config) ? ProjectedDim(config) : config.num_items;
}

int64_t CohortSize(const DpmfRpConfig& config) {
  const double cohort = std::round(config.participation * static_cast<double>(config.num_users));
  return std::max<int64_t>(1, static_cast<int64_t>(cohort));
}

int64_t MinContributors(const DpmfRpConfig& config) {
  if (!config.secure_aggregation) return 1;
  return config.min_clients > 0 ? config.min_clients : CohortSize(config);
}

double ContributionClip(const DpmfRpConfig& config) {
  if (config.contribution_clip > 0) return config.contribution_clip;
  const double one_item = config.error_clip * (1 + config.kappa) * config.user_l1_clip;
  if ((config.mechanism == Mechanism::kPbm && config.pbm_geometry == PbmGeometry::kRotatedL2) ||
      config.mechanism == Mechanism::kDdg) {
    return one_item;
  }
  return 4 * one_item / config.participation;
}

int64_t PbmDimension(const DpmfRpConfig& config) {
  if (config.pbm_geometry == PbmGeometry::kRotatedL2) {
    return dp::NextPowerOfTwo(ProjectedDim(config) * config.rank);
  }
  return dp::NextPowerOfTwo(ProjectedDim(config)) * config.rank;
}

int64_t DdgDimension(const DpmfRpConfig& config) {
  return dp::NextPowerOfTwo(ProjectedDim(config) * config.rank);
}

double PbmCoordinateClip(const DpmfRpConfig& config) {
  if (config.pbm_geometry == PbmGeometry::kRotatedL2) {
    return config.pbm_clip_multiplier * ContributionClip(config) /
           std::sqrt(static_cast<double>(PbmDimension(config)));
  }
  return dp::FlattenedLinfBound(ContributionClip(config), dp::NextPowerOfTwo(ProjectedDim(config)));
}

double PbmL2OverClip(const DpmfRpConfig& config) {
  return ContributionClip(config) * (1 + kPbmNormSlack) / PbmCoordinateClip(config);
}

dp::PrivacyBudget Budget(const DpmfRpConfig& config) {
  return dp::PrivacyBudget::FromEpsilonDelta(config.epsilon, config.delta, config.rdp_order);
}

v1::DpmfRpConfig ToProto(const DpmfRpConfig& c) {
  v1::DpmfRpConfig p;
  p.set_num_items(c.num_items);
  p.set_num_users(c.num_users);
  p.set_rank(c.rank);
  p.set_lambda(c.lambda);
  p.set_mu(c.mu);
  p.set_kappa(c.kappa);
  if (c.ranking_kappa) p.set_ranking_kappa(*c.ranking_kappa);
  p.set_rating_min(c.rating_scale.min);
  p.set_rating_max(c.rating_scale.max);
  p.set_user_l1_clip(c.user_l1_clip);
  p.set_error_clip(c.error_clip);
  switch (c.mechanism) {
    case Mechanism::kPbm:
      p.set_mechanism(v1::DpmfRpConfig::MECHANISM_PBM);
      break;
    case Mechanism::kGaussian:
      p.set_mechanism(v1::DpmfRpConfig::MECHANISM_GAUSSIAN);
      break;
    case Mechanism::kNone:
      p.set_mechanism(v1::DpmfRpConfig::MECHANISM_NONE);
      break;
    case Mechanism::kDdg:
      p.set_mechanism(v1::DpmfRpConfig::MECHANISM_DDG);
      break;
  }
  p.set_projection(c.projection == Projection::kSparse ? v1::DpmfRpConfig::PROJECTION_SPARSE
                                                       : v1::DpmfRpConfig::PROJECTION_NONE);
  p.set_compression(c.compression);
  p.set_item_model(c.item_model == ItemModel::kCompressed ? v1::DpmfRpConfig::ITEM_MODEL_COMPRESSED
                                                          : v1::DpmfRpConfig::ITEM_MODEL_FULL);
  p.set_secure_aggregation(c.secure_aggregation);
  p.set_simulation_summed_noise(c.simulation_summed_noise);
  p.set_participation(c.participation);
  p.set_min_clients(c.min_clients);
  p.set_contribution_clip(c.contribution_clip);
  p.set_epsilon(c.epsilon);
  p.set_delta(c.delta);
  p.set_rdp_order(c.rdp_order);
  p.set_rounds(c.rounds);
  p.set_max_q(c.max_q);
  p.set_fixed_point_bits(c.fixed_point_bits);
  p.set_wrap_probability(c.wrap_probability);
  p.set_learning_rate(c.adam.learning_rate);
  p.set_beta1(c.adam.beta1);
  p.set_beta2(c.adam.beta2);
  p.set_adam_epsilon(c.adam.epsilon);
  p.set_init_scale(c.init_scale);
  p.set_seed(c.seed);
  p.set_pbm_geometry(c.pbm_geometry == PbmGeometry::kColumnL1
                         ? v1::DpmfRpConfig::PBM_GEOMETRY_COLUMN_L1
                         : v1::DpmfRpConfig::PBM_GEOMETRY_ROTATED_L2);
  p.set_pbm_clip_multiplier(c.pbm_clip_multiplier);
  p.set_ddg_bits(c.ddg_bits);
  p.set_ddg_clip_multiplier(c.ddg_clip_multiplier);
  p.set_pbm_accounting(c.pbm_accounting == PbmAccounting::kCoordinate
                           ? v1::DpmfRpConfig::PBM_ACCOUNTING_COORDINATE
                           : v1::DpmfRpConfig::PBM_ACCOUNTING_L2);
  p.set_noise_schedule(c.noise_schedule == NoiseSchedule::kConstant
                           ? v1::DpmfRpConfig::NOISE_SCHEDULE_CONSTANT
                           : v1::DpmfRpConfig::NOISE_SCHEDULE_PREFIX_SUM);
  return p;
}

absl::StatusOr<DpmfRpConfig> FromProto(const v1::DpmfRpConfig& p, absl::string_view context) {
  DpmfRpConfig c;
  c.num_items = p.num_items();
  c.num_users = p.num_users();
  c.rank = p.rank();
  c.lambda = p.lambda();
  c.mu = p.mu();
  c.kappa = p.kappa();
  if (p.has_ranking_kappa()) c.ranking_kappa = p.ranking_kappa();
  c.rating_scale = {.min = p.rating_min(), .max = p.rating_max()};
  c.user_l1_clip = p.user_l1_clip();
  c.error_clip = p.error_clip();
  switch (p.mechanism()) {
    case v1::DpmfRpConfig::MECHANISM_PBM:
      c.mechanism = Mechanism::kPbm;
      break;
    case v1::DpmfRpConfig::MECHANISM_GAUSSIAN:
      c.mechanism = Mechanism::kGaussian;
      break;
    case v1::DpmfRpConfig::MECHANISM_NONE:
      c.mechanism = Mechanism::kNone;
      break;
    case v1::DpmfRpConfig::MECHANISM_DDG:
      c.mechanism = Mechanism::kDdg;
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(context, ": unknown mechanism value ", p.mechanism()));
  }
  switch (p.projection()) {
    case v1::DpmfRpConfig::PROJECTION_SPARSE:
      c.projection = Projection::kSparse;
      break;
    case v1::DpmfRpConfig::PROJECTION_NONE:
      c.projection = Projection::kNone;
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(context, ": unknown projection value ", p.projection()));
  }
  switch (p.item_model()) {
    case v1::DpmfRpConfig::ITEM_MODEL_COMPRESSED:
      c.item_model = ItemModel::kCompressed;
      break;
    case v1::DpmfRpConfig::ITEM_MODEL_FULL:
      c.item_model = ItemModel::kFull;
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(context, ": unknown item model value ", p.item_model()));
  }
  switch (p.pbm_geometry()) {
    case v1::DpmfRpConfig::PBM_GEOMETRY_COLUMN_L1:
      c.pbm_geometry = PbmGeometry::kColumnL1;
      break;
    case v1::DpmfRpConfig::PBM_GEOMETRY_ROTATED_L2:
      c.pbm_geometry = PbmGeometry::kRotatedL2;
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(context, ": unknown PBM geometry value ", p.pbm_geometry()));
  }
  switch (p.pbm_accounting()) {
    case v1::DpmfRpConfig::PBM_ACCOUNTING_UNSPECIFIED:  // a state from before it was recorded
    case v1::DpmfRpConfig::PBM_ACCOUNTING_COORDINATE:
      c.pbm_accounting = PbmAccounting::kCoordinate;
      break;
    case v1::DpmfRpConfig::PBM_ACCOUNTING_L2:
      c.pbm_accounting = PbmAccounting::kL2;
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(context, ": unknown PBM accounting value ", p.pbm_accounting()));
  }
  switch (p.noise_schedule()) {
    case v1::DpmfRpConfig::NOISE_SCHEDULE_UNSPECIFIED:  // a state from before it was recorded
    case v1::DpmfRpConfig::NOISE_SCHEDULE_CONSTANT:
      c.noise_schedule = NoiseSchedule::kConstant;
      break;
    case v1::DpmfRpConfig::NOISE_SCHEDULE_PREFIX_SUM:
      c.noise_schedule = NoiseSchedule::kPrefixSum;
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(context, ": unknown noise schedule value ", p.noise_schedule()));
  }
  c.pbm_clip_multiplier = p.pbm_clip_multiplier();
  // Zero in a config from before DDG existed: the defaults.
  if (p.ddg_bits() != 0) c.ddg_bits = p.ddg_bits();
  if (p.ddg_clip_multiplier() != 0) c.ddg_clip_multiplier = p.ddg_clip_multiplier();
  c.compression = p.compression();
  c.secure_aggregation = p.secure_aggregation();
  c.simulation_summed_noise = p.simulation_summed_noise();
  c.participation = p.participation();
  c.min_clients = p.min_clients();
  c.contribution_clip = p.contribution_clip();
  c.epsilon = p.epsilon();
  c.delta = p.delta();
  c.rdp_order = p.rdp_order();
  c.rounds = p.rounds();
  c.max_q = p.max_q();
  c.fixed_point_bits = p.fixed_point_bits();
  c.wrap_probability = p.wrap_probability();
  c.adam = {.learning_rate = p.learning_rate(),
            .beta1 = p.beta1(),
            .beta2 = p.beta2(),
            .epsilon = p.adam_epsilon()};
  c.init_scale = p.init_scale();
  c.seed = p.seed();
  if (absl::Status s = ValidateConfig(c); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": ", s.message()));
  }
  return c;
}

}  // namespace fedmf::algorithms::dpmf_rp
