#include "common/algorithms/privirec_k/privirec_k.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "Eigen/Eigenvalues"
#include "Eigen/QR"
#include "absl/strings/str_cat.h"
#include "common/algorithms/lib/graph_filter/build.h"
#include "common/algorithms/privirec/model_degrees.h"
#include "common/algorithms/privirec/privirec.h"
#include "common/algorithms/privirec_k/noise.h"
#include "common/algorithms/public_init.h"
#include "common/dp/fixed_point.h"

namespace fedmf::algorithms::privirec_k {
namespace {

using privirec::CountBits;

absl::Status Bad(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("privirec-k config: ", what));
}

// X_0's stream of the run's seed (public_init.h), apart from any other public draw.
constexpr uint64_t kStartStream = 0x70726b30;  // "prk0"

}  // namespace

int DefaultFracBits(int64_t num_users) {
  return std::min(privirec::kMaxFracBits, privirec::kMaxSumBits - 1 - CountBits(num_users));
}

int PowerBits(const v1::PriviRecKConfig& config) {
  return config.frac_bits() + CountBits(config.num_users()) + 1;
}

double PowerErrorBound(const v1::PriviRecKConfig& config) {
  return static_cast<double>(config.num_users()) * std::ldexp(1.0, -(config.frac_bits() + 1));
}

int IterateColumns(const v1::PriviRecKConfig& config) {
  return config.rank() + config.oversample();
}

uint64_t PowerLength(const v1::PriviRecKConfig& config) {
  return static_cast<uint64_t>(config.num_items()) * static_cast<uint64_t>(IterateColumns(config));
}

uint64_t BasisLength(const v1::PriviRecKModel& model) {
  const v1::PriviRecKConfig& c = model.config();
  if (model.round() == 1) {
    return static_cast<uint64_t>(c.num_items()) * static_cast<uint64_t>(c.rank());
  }
  return model.phase() == kDegreePhase ? 0 : PowerLength(c);
}

Eigen::Map<const RowMatrix> PowerIterate(const v1::PriviRecKModel& model) {
  const v1::PriviRecKConfig& c = model.config();
  return Eigen::Map<const RowMatrix>(model.basis().data(), c.num_items(), IterateColumns(c));
}

absl::Status ValidateConfig(const v1::PriviRecKConfig& config) {
  if (config.num_items() < 1) return Bad(absl::StrCat("num_items=", config.num_items()));
  if (config.num_users() < 1 || config.num_users() > (int64_t{1} << 32) - 1) {
    return Bad(absl::StrCat("num_users=", config.num_users()));
  }
  if (config.rank() < 1 || config.rank() > config.num_items()) {
    return Bad(
        absl::StrCat("rank=", config.rank(), " outside [1, num_items=", config.num_items(), "]"));
  }
  if (config.oversample() < 0 || config.oversample() > config.num_items() - config.rank()) {
    return Bad(absl::StrCat("oversample=", config.oversample(), " outside [0, num_items - rank = ",
                            config.num_items() - config.rank(), "]"));
  }
  if (config.power_sums() < 1) return Bad(absl::StrCat("power_sums=", config.power_sums()));
  if (config.frac_bits() < 1 || config.frac_bits() > privirec::kMaxFracBits) {
    return Bad(absl::StrCat("frac_bits=", config.frac_bits(), " outside [1, ",
                            privirec::kMaxFracBits, "]"));
  }
  if (PowerBits(config) > privirec::kMaxSumBits) {
    return Bad(absl::StrCat("frac_bits=", config.frac_bits(), " with ", config.num_users(),
                            " users needs ", PowerBits(config), " bits > ", privirec::kMaxSumBits));
  }
  if (!std::isfinite(config.gamma())) return Bad(absl::StrCat("gamma=", config.gamma()));
  if (config.low_pass_rank() < 0 || config.low_pass_rank() > config.rank()) {
    return Bad(absl::StrCat("low_pass_rank=", config.low_pass_rank(),
                            " outside [0, rank=", config.rank(), "]"));
  }
  if (absl::StatusOr<graph_filter::GraphFilterConfig> filter = FilterConfig(config); !filter.ok()) {
    return Bad(filter.status().message());
  }
  return ValidateNoiseConfig(config);
}

absl::StatusOr<int> PhaseBits(const v1::PriviRecKModel& model, int phase) {
  const v1::PriviRecKConfig& c = model.config();
  if (Noisy(c)) {
    absl::StatusOr<dp::DistributedDiscreteGaussian> ddg = PhaseDdg(c, model.noise(), phase);
    if (!ddg.ok()) return ddg.status();
    return ddg->modulus_bits();
  }
  return phase == kDegreePhase ? CountBits(c.num_users()) : PowerBits(c);
}

Eigen::VectorXd ItemDegrees(const v1::PriviRecKModel& model) {
  return privirec::ModelDegrees(model, Noisy(model.config()));
}

int DegreeCount(const v1::PriviRecKModel& model) {
  return privirec::ModelDegreeCount(model, Noisy(model.config()));
}

Orthonormalized Orthonormalize(const Eigen::Ref<const RowMatrix>& y) {
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(y);
  const Eigen::Index k = y.cols();
  Orthonormalized out;
  out.q = qr.householderQ() * Eigen::MatrixXd::Identity(y.rows(), k);
  out.diagonal = qr.matrixQR().diagonal().head(k);
  // Householder's T has either sign on its diagonal: flip Q's column and T's row to make it >= 0.
  for (Eigen::Index c = 0; c < k; ++c) {
    if (out.diagonal[c] < 0) {
      out.diagonal[c] = -out.diagonal[c];
      out.q.col(c) *= -1;
    }
  }
  return out;
}

RowMatrix StartBasis(const v1::PriviRecKConfig& config) {
  const Eigen::MatrixXd g = PublicNormalMatrix(config.num_items(), IterateColumns(config), 1.0,
                                               config.seed(), kStartStream);
  return Orthonormalize(g).q;
}

absl::StatusOr<RowMatrix> PowerStep(absl::Span<const int32_t> items,
                                    absl::Span<const double> item_degrees,
                                    const Eigen::Ref<const RowMatrix>& x) {
  const auto d_u = static_cast<Eigen::Index>(items.size());
  const double user_scale = 1 / std::sqrt(static_cast<double>(d_u));
  // row_of_r = A_u on the user's items, a = A_u x (k values).
  Eigen::VectorXd row_of_r = Eigen::VectorXd::Zero(d_u);
  Eigen::RowVectorXd a = Eigen::RowVectorXd::Zero(x.cols());
  for (Eigen::Index t = 0; t < d_u; ++t) {
    const double degree = item_degrees[static_cast<size_t>(t)];
    if (degree == 0) continue;  // unseen
    if (!(std::isfinite(degree) && degree >= 1)) {
      return absl::InvalidArgumentError(absl::StrCat("privirec-k: item ", items[t], " has degree ",
                                                     degree, ", neither 0 nor >= 1"));
    }
    row_of_r[t] = user_scale / std::sqrt(degree);
    a += row_of_r[t] * x.row(items[t]);
  }
  return RowMatrix(row_of_r * a);
}

absl::StatusOr<SparseCodes> PowerContribution(const v1::PriviRecKConfig& config,
                                              absl::Span<const int32_t> items,
                                              absl::Span<const int64_t> degrees,
                                              const Eigen::Ref<const RowMatrix>& x) {
  const Eigen::Index k = x.cols();
  std::vector<double> item_degrees(items.size());
  for (size_t t = 0; t < items.size(); ++t) {
    const int64_t degree = degrees[static_cast<size_t>(items[t])];
    if (degree < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("privirec-k: item ", items[t], " has degree ", degree,
                       " in the broadcast degrees, yet this user rated it"));
    }
    item_degrees[t] = static_cast<double>(degree);
  }
  absl::StatusOr<RowMatrix> rows = PowerStep(items, item_degrees, x);
  if (!rows.ok()) return rows.status();
  const int bits = PowerBits(config);
  const double unit = std::ldexp(1.0, config.frac_bits());
  SparseCodes out;
  out.indices.reserve(items.size() * static_cast<size_t>(k));
  out.values.reserve(items.size() * static_cast<size_t>(k));
  for (size_t t = 0; t < items.size(); ++t) {
    const uint64_t base = static_cast<uint64_t>(items[t]) * static_cast<uint64_t>(k);
    for (Eigen::Index c = 0; c < k; ++c) {
      // |y| <= 1 (header); the clamp only absorbs x's rounding (columns of norm 1 +- 1e-15).
      const double y = std::clamp((*rows)(static_cast<Eigen::Index>(t), c), -1.0, 1.0);
      out.indices.push_back(base + static_cast<uint64_t>(c));
      out.values.push_back(dp::ReduceModPow2(std::llround(y * unit), bits));
    }
  }
  return out;
}

absl::StatusOr<RowMatrix> DecodePowerSum(const v1::PriviRecKConfig& config,
                                         absl::Span<const uint64_t> sum) {
  if (sum.size() != PowerLength(config)) {
    return absl::InvalidArgumentError(absl::StrCat("privirec-k: a power sum of length ", sum.size(),
                                                   ", expected ", PowerLength(config)));
  }
  const double unit = std::ldexp(1.0, config.frac_bits());
  absl::StatusOr<Eigen::VectorXd> decoded = dp::DecodeCheckedSum(
      sum, PowerBits(config), static_cast<double>(config.num_users()) * unit, unit);
  if (!decoded.ok()) return decoded.status();
  return RowMatrix(
      Eigen::Map<const RowMatrix>(decoded->data(), config.num_items(), IterateColumns(config)));
}

SingularBasis FinishBasis(const Eigen::Ref<const RowMatrix>& x,
                          const Eigen::Ref<const RowMatrix>& y, bool rayleigh_ritz, int keep) {
  SingularBasis out;
  if (!rayleigh_ritz) {
    // The QR keeps the columns' order: the first k converge first (Gram-Schmidt's).
    Orthonormalized qr = Orthonormalize(y);
    out.vectors = qr.q.leftCols(keep);
    out.values = qr.diagonal.head(keep);
    return out;
  }
  // H = X^T P~ X, symmetric up to the fixed-point error: symmetrize before the eigensolver.
  Eigen::MatrixXd h = x.transpose() * y;
  h = (0.5 * (h + h.transpose())).eval();
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(h);
  // Eigen sorts ascending: the last `keep`, reversed to descending.
  const Eigen::MatrixXd w = eigen.eigenvectors().rightCols(keep).rowwise().reverse();
  out.values = eigen.eigenvalues().tail(keep).reverse();
  // P~ (X W) = Y W: one more power step of the Ritz vectors, kept in their order by the QR.
  out.vectors = Orthonormalize(y * w).q;
  return out;
}

absl::StatusOr<SingularBasis> ModelBasis(const v1::PriviRecKModel& model) {
  const v1::PriviRecKConfig& c = model.config();
  if (model.round() != 1 || static_cast<uint64_t>(model.basis_size()) != BasisLength(model) ||
      model.values_size() != c.rank()) {
    return absl::InvalidArgumentError("privirec-k: the model lacks its final basis");
  }
  SingularBasis basis;
  basis.vectors = Eigen::Map<const RowMatrix>(model.basis().data(), c.num_items(), c.rank());
  basis.values = Eigen::Map<const Eigen::VectorXd>(model.values().data(), c.rank());
  return basis;
}

absl::StatusOr<graph_filter::GraphFilterConfig> FilterConfig(const v1::PriviRecKConfig& config) {
  absl::StatusOr<graph_filter::GraphFilterConfig> filter =
      graph_filter::PublishedConfig(config.filter().empty() ? "gf-cf" : config.filter());
  if (!filter.ok()) return filter.status();
  if (filter->model == graph_filter::FilterModel::kTurboCf) {
    return absl::InvalidArgumentError(
        absl::StrCat("filter=", config.filter(),
                     ": Turbo-CF's entrywise power needs P~'s entries, which "
                     "no client of privirec-k has (privirec sums them)"));
  }
  filter->rank = config.low_pass_rank() != 0 ? config.low_pass_rank() : config.rank();
  filter->gram_rank = config.rank();
  if (filter->model == graph_filter::FilterModel::kGfCf) {
    filter->gamma = config.gamma();
  } else {
    filter->bspm.ideal_weight = config.gamma();
  }
  return filter;
}

absl::StatusOr<std::shared_ptr<const graph_filter::ItemFilter>> BuildFilter(
    const v1::PriviRecKConfig& config, const Eigen::VectorXd& item_degrees, SingularBasis basis) {
  absl::StatusOr<graph_filter::GraphFilterConfig> filter = FilterConfig(config);
  if (!filter.ok()) return filter.status();
  return graph_filter::BuildFilterFromBasis(item_degrees, std::move(basis), *filter);
}

}  // namespace fedmf::algorithms::privirec_k
