#include "common/data/dataset_source.h"

#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/data/strict_parse.h"
#include "common/data/synthetic_shapes.h"

namespace fedmf::data {
namespace {

// Named options, each parsing its value into a field; reports unknown, repeated and bad ones.
class OptionTable {
 public:
  using Setter = std::function<bool(absl::string_view)>;

  void Add(std::string key, std::string expected, Setter set) {
    options_.push_back({std::move(key), std::move(expected), std::move(set)});
  }

  // Applies "key=value<separator>key=value..."; `context` starts every message.
  absl::Status Apply(absl::string_view context, absl::string_view list, char separator) {
    absl::flat_hash_set<std::string> seen;
    for (absl::string_view part : absl::StrSplit(list, separator)) {
      const size_t eq = part.find('=');
      if (eq == absl::string_view::npos || eq == 0) {
        return Error(context, absl::StrCat("option \"", part, "\" is not KEY=VALUE"));
      }
      const absl::string_view key = part.substr(0, eq);
      const absl::string_view value = part.substr(eq + 1);
      const Option* option = Find(key);
      if (option == nullptr) {
        std::vector<absl::string_view> known;
        for (const Option& o : options_) known.push_back(o.key);
        return Error(context, absl::StrCat("unknown option '", key,
                                           "' (known: ", absl::StrJoin(known, ", "), ")"));
      }
      if (!seen.insert(std::string(key)).second) {
        return Error(context, absl::StrCat("option '", key, "' given twice"));
      }
      if (!option->set(value)) {
        return Error(context, absl::StrCat("bad value for '", key, "': \"", value, "\" (expected ",
                                           option->expected, ")"));
      }
    }
    return absl::OkStatus();
  }

  static absl::Status Error(absl::string_view context, absl::string_view problem) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": ", problem));
  }

 private:
  struct Option {
    std::string key;
    std::string expected;
    Setter set;
  };
  const Option* Find(absl::string_view key) const {
    for (const Option& o : options_) {
      if (o.key == key) return &o;
    }
    return nullptr;
  }
  std::vector<Option> options_;
};

template <typename T>
OptionTable::Setter Integer(T& field) {
  return [&field](absl::string_view v) { return ParseInteger(v, field); };
}
OptionTable::Setter Number(double& field) {
  return [&field](absl::string_view v) { return ParseFiniteDouble(v, field); };
}
OptionTable::Setter OptionalNumber(std::optional<double>& field) {
  return [&field](absl::string_view v) {
    double x;
    if (!ParseFiniteDouble(v, x)) return false;
    field = x;
    return true;
  };
}
OptionTable::Setter Column(int& field) {
  return [&field](absl::string_view v) { return ParseInteger(v, field) && field >= 0; };
}
OptionTable::Setter Flag(bool& field) {
  return [&field](absl::string_view v) {
    const bool yes = v == "1" || v == "true";
    if (!yes && v != "0" && v != "false") return false;
    field = yes;
    return true;
  };
}

// "[NAME][,KEY=VALUE...]": a named shape (synthetic_shapes.h), then fields overridden one by one.
absl::StatusOr<SyntheticConfig> ParseSynthetic(absl::string_view options) {
  SyntheticConfig c;
  const absl::string_view first = options.substr(0, options.find(','));
  if (!first.empty() && first.find('=') == absl::string_view::npos) {
    absl::StatusOr<SyntheticConfig> shape = SyntheticShape(first);
    if (!shape.ok()) return shape.status();
    c = *shape;
    if (first.size() == options.size()) return c;
    options.remove_prefix(first.size() + 1);
  }
  std::optional<double> per_user;
  OptionTable table;
  table.Add("users", "an integer", Integer(c.num_users));
  table.Add("items", "an integer", Integer(c.num_items));
  table.Add("rank", "an integer", Integer(c.rank));
  table.Add("per_user", "a number", OptionalNumber(per_user));
  table.Add("density", "a number", OptionalNumber(c.density));
  table.Add("item_exp", "a number", Number(c.item_popularity_exponent));
  table.Add("item_offset", "a number", Number(c.item_popularity_offset));
  table.Add("user_exp", "a number", Number(c.user_activity_exponent));
  table.Add("user_offset", "a number", Number(c.user_activity_offset));
  table.Add("min_per_user", "an integer", Integer(c.min_ratings_per_user));
  table.Add("clusters", "an integer", Integer(c.taste_clusters));
  table.Add("taste", "a number", Number(c.taste_strength));
  table.Add("spread", "a number", Number(c.taste_spread));
  table.Add("pop_share", "a number", Number(c.popularity_share));
  table.Add("implicit", "0 or 1", Flag(c.implicit));
  table.Add("stars", "four numbers joined by '/'", [&c](absl::string_view v) {
    const std::vector<absl::string_view> cuts = absl::StrSplit(v, '/');
    if (cuts.size() != c.star_cuts.size()) return false;
    for (size_t k = 0; k < cuts.size(); ++k) {
      if (!ParseFiniteDouble(cuts[k], c.star_cuts[k])) return false;
    }
    return true;
  });
  table.Add("noise", "a number", Number(c.noise_std));
  table.Add("mean", "a number", Number(c.mean_score));
  table.Add("user_bias", "a number", Number(c.user_bias_std));
  table.Add("item_bias", "a number", Number(c.item_bias_std));
  table.Add("interaction", "a number", Number(c.interaction_std));
  table.Add("seed", "an unsigned 64-bit integer", Integer(c.seed));
  if (absl::Status s = table.Apply("synthetic", options, ','); !s.ok()) return s;
  if (per_user.has_value() && c.density.has_value()) {
    return OptionTable::Error("synthetic", "give per_user or density, not both");
  }
  if (per_user.has_value()) c.ratings_per_user = *per_user;
  if (absl::Status s = ValidateSyntheticConfig(c); !s.ok()) return s;
  return c;
}

absl::Status ParseUserItemOptions(absl::string_view kind, absl::string_view options,
                                  DataSpec& spec) {
  OptionTable table;
  table.Add("test", "a path", [&spec](absl::string_view v) {
    spec.test_path = std::string(v);
    return !v.empty();
  });
  return table.Apply(kind, options, '&');
}

absl::Status ParseFileOptions(absl::string_view kind, absl::string_view options, DataSpec& spec) {
  if (spec.kind == DataSpec::Kind::kUserItemLists) return ParseUserItemOptions(kind, options, spec);
  std::optional<double> min, max;
  OptionTable table;
  table.Add("min", "a number", OptionalNumber(min));
  table.Add("max", "a number", OptionalNumber(max));
  table.Add("duplicates", "error, first or last", [&spec](absl::string_view v) {
    static constexpr std::pair<absl::string_view, DuplicatePolicy> kPolicies[] = {
        {"error", DuplicatePolicy::kError},
        {"first", DuplicatePolicy::kKeepFirst},
        {"last", DuplicatePolicy::kKeepLast}};
    for (const auto& [name, policy] : kPolicies) {
      if (v == name) {
        spec.options.duplicates = policy;
        return true;
      }
    }
    return false;
  });
  DelimitedFormat& f = spec.format;
  if (spec.kind == DataSpec::Kind::kDelimited) {
    table.Add("sep", "a non-empty string", [&f](absl::string_view v) {
      static constexpr std::pair<absl::string_view, absl::string_view> kNames[] = {
          {"tab", "\t"}, {"space", " "}, {"comma", ","}, {"semicolon", ";"}, {"pipe", "|"}};
      f.delimiter = std::string(v);
      for (const auto& [name, sep] : kNames) {
        if (v == name) f.delimiter = std::string(sep);
      }
      return !v.empty();
    });
    table.Add("header", "0 or 1", Flag(f.has_header));
    table.Add("user", "a column index >= 0", Column(f.user_column));
    table.Add("item", "a column index >= 0", Column(f.item_column));
    table.Add("rating", "a column index >= 0", Column(f.rating_column));
    table.Add("timestamp", "a column index >= 0 or none", [&f](absl::string_view v) {
      int column;
      if (v == "none") {
        f.timestamp_column.reset();
      } else if (ParseInteger(v, column) && column >= 0) {
        f.timestamp_column = column;
      } else {
        return false;
      }
      return true;
    });
    table.Add("columns", "an integer >= 1", [&f](absl::string_view v) {
      return ParseInteger(v, f.num_columns) && f.num_columns >= 1;
    });
    table.Add("extra", "0 or 1", Flag(f.allow_extra_columns));
  }
  if (absl::Status s = table.Apply(kind, options, '&'); !s.ok()) return s;
  if (min.has_value() != max.has_value()) {
    return OptionTable::Error(kind, "min and max must be given together");
  }
  if (min.has_value()) {
    if (*min > *max) {
      return OptionTable::Error(kind, absl::StrCat("min = ", *min, " exceeds max = ", *max));
    }
    spec.options.range = RatingRange{*min, *max};
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<DataSpec> ParseDataSpec(absl::string_view spec) {
  DataSpec result;
  const size_t colon = spec.find(':');
  const absl::string_view kind = spec.substr(0, colon);
  const bool has_rest = colon != absl::string_view::npos;
  const absl::string_view rest = has_rest ? spec.substr(colon + 1) : absl::string_view();
  if (kind == "synthetic") {
    if (has_rest) {
      absl::StatusOr<SyntheticConfig> config = ParseSynthetic(rest);
      if (!config.ok()) return config.status();
      result.synthetic = *config;
    }
    return result;
  }
  static constexpr std::pair<absl::string_view, DataSpec::Kind> kKinds[] = {
      {"ml-100k", DataSpec::Kind::kMovieLens100K},
      {"ml-csv", DataSpec::Kind::kMovieLensCsv},
      {"ml-dat", DataSpec::Kind::kMovieLensDat},
      {"csv", DataSpec::Kind::kDelimited},
      {"user-items", DataSpec::Kind::kUserItemLists}};
  bool known = false;
  for (const auto& [name, k] : kKinds) {
    if (kind == name) {
      result.kind = k;
      known = true;
    }
  }
  if (!known) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown data source '", kind, "' in \"", spec,
                     "\" (expected synthetic, ml-100k, ml-csv, ml-dat, csv or user-items)"));
  }
  const size_t question = rest.find('?');
  result.path = std::string(rest.substr(0, question));
  if (result.path.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(kind, ": missing path in \"", spec, "\""));
  }
  if (question != absl::string_view::npos) {
    if (absl::Status s = ParseFileOptions(kind, rest.substr(question + 1), result); !s.ok()) {
      return s;
    }
  }
  return result;
}

absl::StatusOr<RatingsDataset> LoadDataset(const DataSpec& spec) {
  switch (spec.kind) {
    case DataSpec::Kind::kSynthetic:
      return GenerateSynthetic(spec.synthetic);
    case DataSpec::Kind::kMovieLens100K:
      return LoadMovieLens100K(spec.path, spec.options);
    case DataSpec::Kind::kMovieLensCsv:
      return LoadMovieLensCsv(spec.path, spec.options);
    case DataSpec::Kind::kMovieLensDat:
      return LoadMovieLensDat(spec.path, spec.options);
    case DataSpec::Kind::kDelimited:
      return LoadDelimited(spec.path, spec.format, spec.options);
    case DataSpec::Kind::kUserItemLists:
      return LoadUserItemLists(spec.path, spec.test_path);
  }
  return absl::InternalError("unhandled DataSpec kind");
}

absl::StatusOr<RatingsDataset> LoadDataset(absl::string_view spec) {
  absl::StatusOr<DataSpec> parsed = ParseDataSpec(spec);
  if (!parsed.ok()) return parsed.status();
  return LoadDataset(*parsed);
}

std::string DescribeDataset(const RatingsDataset& data) {
  const double cells = static_cast<double>(data.num_users()) * data.num_items();
  const double density = cells > 0 ? static_cast<double>(data.num_ratings()) / cells : 0.0;
  std::string summary = absl::StrFormat(
      "users=%d items=%d ratings=%d density=%.4f mean_rating=%.3f", data.num_users(),
      data.num_items(), data.num_ratings(), density, data.MeanRating());
  if (!data.predefined_test().empty()) {
    absl::StrAppend(&summary, " predefined_test=", data.predefined_test().size());
  }
  return summary;
}

}  // namespace fedmf::data
