#include "common/algorithms/privirec/privirec.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "Eigen/SparseCore"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "common/algorithms/privirec/model_degrees.h"
#include "common/algorithms/privirec/noise.h"

namespace fedmf::algorithms::privirec {
namespace {

absl::Status Bad(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("privirec config: ", what));
}

}  // namespace

int CountBits(int64_t n) {
  int bits = 0;
  while (bits < 63 && (int64_t{1} << bits) <= n) ++bits;  // 2^bits > n
  return std::max(bits, 1);
}

int DefaultFracBits(int64_t num_users) {
  return std::min(kMaxFracBits, kMaxSumBits - CountBits(num_users));
}

int GramBits(const v1::PriviRecConfig& config) {
  return config.frac_bits() + CountBits(config.num_users());
}

int DegreeBits(const v1::PriviRecConfig& config) { return CountBits(config.num_users()); }

double GramErrorBound(const v1::PriviRecConfig& config) {
  return static_cast<double>(config.num_users()) * std::ldexp(1.0, -(config.frac_bits() + 1));
}

absl::Status ValidateConfig(const v1::PriviRecConfig& config) {
  if (config.num_items() < 1) return Bad(absl::StrCat("num_items=", config.num_items()));
  if (config.num_users() < 1 || config.num_users() > (int64_t{1} << 32) - 1) {
    return Bad(absl::StrCat("num_users=", config.num_users()));
  }
  absl::StatusOr<graph_filter::GraphFilterConfig> filter = FilterConfig(config);
  if (!filter.ok()) return Bad(filter.status().message());
  if (absl::Status s = ValidateNoiseConfig(config, filter->alpha); !s.ok()) return s;
  if (config.frac_bits() < 1 || config.frac_bits() > kMaxFracBits) {
    return Bad(absl::StrCat("frac_bits=", config.frac_bits(), " outside [1, ", kMaxFracBits, "]"));
  }
  if (GramBits(config) > kMaxSumBits) {
    return Bad(absl::StrCat("frac_bits=", config.frac_bits(), " with ", config.num_users(),
                            " users needs ", GramBits(config), " bits > ", kMaxSumBits));
  }
  // The Gram phase's coordinates: m (m + 1) / 2 must fit the plan's uint64 length.
  if (config.num_items() > (1 << 30)) return Bad("num_items too large");
  return absl::OkStatus();
}

std::string FilterName(v1::PriviRecOptions::Filter filter) {
  absl::string_view name = v1::PriviRecOptions::Filter_Name(filter);
  absl::ConsumePrefix(&name, "FILTER_");
  return absl::StrReplaceAll(absl::AsciiStrToLower(name), {{"_", "-"}});
}

absl::StatusOr<graph_filter::GraphFilterConfig> FilterConfig(const v1::PriviRecConfig& config) {
  return graph_filter::PublishedConfig(config.filter());
}

uint64_t UpperLength(int32_t m) {
  const auto mm = static_cast<uint64_t>(m);
  return mm * (mm + 1) / 2;
}

uint64_t UpperIndex(int32_t m, int32_t i, int32_t j) {
  const auto mm = static_cast<uint64_t>(m), ii = static_cast<uint64_t>(i);
  return ii * mm - ii * (ii - 1) / 2 + static_cast<uint64_t>(j - i);
}

std::pair<int32_t, int32_t> UpperPair(int32_t m, uint64_t index) {
  // Row i starts at UpperIndex(m, i, i) = i m - i (i - 1) / 2; solve, then correct rounding.
  const double b = 2.0 * m + 1;
  auto i = static_cast<int64_t>((b - std::sqrt(b * b - 8.0 * static_cast<double>(index))) / 2);
  i = std::clamp<int64_t>(i, 0, m - 1);
  while (i > 0 && UpperIndex(m, static_cast<int32_t>(i), static_cast<int32_t>(i)) > index) --i;
  while (i + 1 < m &&
         UpperIndex(m, static_cast<int32_t>(i + 1), static_cast<int32_t>(i + 1)) <= index) {
    ++i;
  }
  const uint64_t start = UpperIndex(m, static_cast<int32_t>(i), static_cast<int32_t>(i));
  return {static_cast<int32_t>(i), static_cast<int32_t>(i + static_cast<int64_t>(index - start))};
}

double GramWeight(int64_t degree, double alpha) {
  return std::pow(static_cast<double>(degree), -2 * alpha);
}

uint64_t EncodeWeight(double weight, int frac_bits) {
  return static_cast<uint64_t>(std::llround(std::ldexp(weight, frac_bits)));
}

absl::StatusOr<std::vector<int32_t>> SortedItems(absl::Span<const int32_t> rated, int32_t m,
                                                 absl::string_view algorithm) {
  std::vector<int32_t> items(rated.begin(), rated.end());
  std::sort(items.begin(), items.end());
  for (size_t k = 0; k < items.size(); ++k) {
    if (items[k] < 0 || items[k] >= m) {
      return absl::InvalidArgumentError(
          absl::StrCat(algorithm, ": rated item ", items[k], " outside [0, ", m, ")"));
    }
    if (k > 0 && items[k] == items[k - 1]) {
      return absl::InvalidArgumentError(
          absl::StrCat(algorithm, ": item ", items[k], " rated twice"));
    }
  }
  return items;
}

std::vector<uint64_t> DegreeIndices(absl::Span<const int32_t> items) {
  return std::vector<uint64_t>(items.begin(), items.end());
}

std::vector<uint64_t> GramIndices(int32_t m, absl::Span<const int32_t> items) {
  std::vector<uint64_t> out;
  out.reserve(items.size() * (items.size() + 1) / 2);
  for (size_t a = 0; a < items.size(); ++a) {
    for (size_t b = a; b < items.size(); ++b) out.push_back(UpperIndex(m, items[a], items[b]));
  }
  return out;  // ascending: rows ascending, columns ascending within a row
}

absl::StatusOr<int> PhaseBits(const v1::PriviRecModel& model, int phase) {
  const v1::PriviRecConfig& c = model.config();
  if (!Noisy(c)) return phase == kGramPhase ? GramBits(c) : DegreeBits(c);
  absl::StatusOr<dp::DistributedDiscreteGaussian> ddg = PhaseDdg(c, model.noise(), phase);
  if (!ddg.ok()) return ddg.status();
  return ddg->modulus_bits();
}

int DegreeCount(const v1::PriviRecModel& model) {
  return ModelDegreeCount(model, Noisy(model.config()));
}

Eigen::VectorXd Degrees(const v1::PriviRecModel& model) {
  return ModelDegrees(model, Noisy(model.config()));
}

absl::StatusOr<graph_filter::SparseRows> DecodeGram(const v1::PriviRecModel& model, double alpha) {
  const int32_t m = model.config().num_items();
  const bool noisy = Noisy(model.config());
  const int values = noisy ? model.noisy_gram_size() : model.gram_sum_size();
  if (model.round() != 1 || DegreeCount(model) != m || model.gram_index_size() != values) {
    return absl::InvalidArgumentError("privirec: the model lacks its degrees or Gram sum");
  }
  // V^(alpha-1), 0 for an item of degree 0 (as graph_filter's R~).
  const Eigen::VectorXd degrees = Degrees(model);
  Eigen::VectorXd scale(m);
  for (int32_t j = 0; j < m; ++j) scale[j] = degrees[j] > 0 ? std::pow(degrees[j], alpha - 1) : 0.0;
  const double unit = std::ldexp(1.0, -model.config().frac_bits());
  const uint64_t length = UpperLength(m);
  std::vector<Eigen::Triplet<double, int32_t>> entries;
  entries.reserve(2 * static_cast<size_t>(model.gram_index_size()));
  uint64_t previous = 0;
  int32_t row = 0;
  for (int k = 0; k < model.gram_index_size(); ++k) {
    const uint64_t index = model.gram_index(k);
    if (index >= length || (k > 0 && index <= previous)) {
      return absl::InvalidArgumentError(
          absl::StrCat("privirec: Gram index ", index, " out of order or range"));
    }
    previous = index;
    while (row + 1 < m && UpperIndex(m, row + 1, row + 1) <= index) ++row;
    const int32_t col = row + static_cast<int32_t>(index - UpperIndex(m, row, row));
    const double sum = noisy ? model.noisy_gram(k) : static_cast<double>(model.gram_sum(k)) * unit;
    const double value = sum * scale[row] * scale[col];
    if (value == 0) continue;
    entries.emplace_back(row, col, value);
    if (col != row) entries.emplace_back(col, row, value);
  }
  graph_filter::SparseRows gram(m, m);
  gram.setFromTriplets(entries.begin(), entries.end());
  gram.makeCompressed();
  return gram;
}

}  // namespace fedmf::algorithms::privirec
