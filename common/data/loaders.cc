#include "common/data/loaders.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/data/line_reader.h"
#include "common/data/strict_parse.h"

namespace fedmf::data {
namespace {

std::string DescribeDelimiter(absl::string_view delimiter) {
  if (delimiter == "\t") return "tab-separated";
  if (delimiter == ",") return "comma-separated";
  if (delimiter == " ") return "space-separated";
  return absl::StrCat("'", delimiter, "'-separated");
}

absl::Status CheckFormat(const DelimitedFormat& f, const LoadOptions& options) {
  if (f.delimiter.empty()) return absl::InvalidArgumentError("delimiter must not be empty");
  const int columns[] = {f.user_column, f.item_column, f.rating_column,
                         f.timestamp_column.value_or(f.user_column)};
  for (int c : columns) {
    if (c < 0) return absl::InvalidArgumentError(absl::StrCat("column index ", c, " is negative"));
  }
  const int used = f.timestamp_column.has_value() ? 4 : 3;
  for (int a = 0; a < used; ++a) {
    for (int b = a + 1; b < used; ++b) {
      if (columns[a] == columns[b]) {
        return absl::InvalidArgumentError(
            absl::StrCat("column ", columns[a], " is used for two fields"));
      }
    }
  }
  const int needed = 1 + *std::max_element(columns, columns + used);
  if (f.num_columns != 0 && f.num_columns < needed) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_columns ", f.num_columns, " is too small for column ", needed - 1));
  }
  if (options.range.has_value()) {
    const RatingRange& r = *options.range;
    if (!std::isfinite(r.min) || !std::isfinite(r.max) || r.min > r.max) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad rating range [", r.min, ", ", r.max, "]"));
    }
  }
  return absl::OkStatus();
}

// Splits `line` into `fields` (capacity reused across lines).
void Split(absl::string_view line, absl::string_view delimiter,
           std::vector<absl::string_view>& fields) {
  fields.clear();
  size_t start = 0;
  while (true) {
    const size_t at =
        delimiter.size() == 1 ? line.find(delimiter[0], start) : line.find(delimiter, start);
    if (at == absl::string_view::npos) {
      fields.push_back(line.substr(start));
      return;
    }
    fields.push_back(line.substr(start, at - start));
    start = at + delimiter.size();
  }
}

// Parses one line at a time into a RatingsBuilder; every error names path and line.
class DelimitedParser {
 public:
  DelimitedParser(const DelimitedFormat& format, const LoadOptions& options, std::string path)
      : format_(format), range_(options.range), path_(std::move(path)) {
    const int needed = 1 + std::max({format.user_column, format.item_column, format.rating_column,
                                     format.timestamp_column.value_or(0)});
    num_columns_ = format.num_columns != 0 ? format.num_columns : needed;
    separated_ = DescribeDelimiter(format.delimiter);
  }

  absl::Status ParseLine(absl::string_view line, int64_t line_number, RatingsBuilder& builder) {
    Split(line, format_.delimiter, fields_);
    const int found = static_cast<int>(fields_.size());
    if (format_.allow_extra_columns ? found < num_columns_ : found != num_columns_) {
      return Error(line_number,
                   absl::StrCat("expected ", format_.allow_extra_columns ? "at least " : "",
                                num_columns_, " ", separated_, " fields, found ", found));
    }
    const absl::string_view user = fields_[format_.user_column];
    const absl::string_view item = fields_[format_.item_column];
    if (user.empty()) return Error(line_number, "field 'user' is empty");
    if (item.empty()) return Error(line_number, "field 'item' is empty");
    const absl::string_view rating_text = fields_[format_.rating_column];
    double rating;
    if (!ParseFiniteDouble(rating_text, rating)) {
      return Error(line_number,
                   absl::StrCat("field 'rating' is not a number: \"", rating_text, "\""));
    }
    if (std::fabs(rating) > std::numeric_limits<float>::max()) {  // stored as float
      return Error(line_number, absl::StrCat("field 'rating' is too large: \"", rating_text, "\""));
    }
    if (range_.has_value() && (rating < range_->min || rating > range_->max)) {
      return Error(line_number, absl::StrCat("rating ", rating_text, " outside declared range [",
                                             range_->min, ", ", range_->max, "]"));
    }
    std::optional<int64_t> timestamp;
    if (format_.timestamp_column.has_value()) {
      const absl::string_view text = fields_[*format_.timestamp_column];
      int64_t value;
      if (!ParseInteger(text, value)) {
        return Error(line_number,
                     absl::StrCat("field 'timestamp' is not an integer: \"", text, "\""));
      }
      timestamp = value;
    }
    builder.Add(user, item, static_cast<float>(rating), timestamp, line_number);
    return absl::OkStatus();
  }

  absl::Status Error(int64_t line_number, absl::string_view problem) const {
    return absl::InvalidArgumentError(absl::StrCat(path_, ":", line_number, ": ", problem));
  }

 private:
  const DelimitedFormat& format_;
  std::optional<RatingRange> range_;
  std::string path_;
  int num_columns_ = 0;
  std::string separated_;
  std::vector<absl::string_view> fields_;
};

absl::StatusOr<RatingsDataset> LoadWithDefaultRange(absl::string_view path,
                                                    const DelimitedFormat& format,
                                                    LoadOptions options, RatingRange range) {
  if (!options.range.has_value()) options.range = range;
  return LoadDelimited(path, format, options);
}

}  // namespace

DelimitedFormat MovieLens100KFormat() {
  DelimitedFormat f;
  f.delimiter = "\t";
  f.timestamp_column = 3;
  f.num_columns = 4;
  return f;
}

DelimitedFormat MovieLensCsvFormat() {
  DelimitedFormat f;
  f.delimiter = ",";
  f.has_header = true;
  f.expected_header = "userId,movieId,rating,timestamp";
  f.timestamp_column = 3;
  f.num_columns = 4;
  return f;
}

DelimitedFormat MovieLensDatFormat() {
  DelimitedFormat f;
  f.delimiter = "::";
  f.timestamp_column = 3;
  f.num_columns = 4;
  return f;
}

absl::StatusOr<RatingsDataset> LoadMovieLens100K(absl::string_view path,
                                                 const LoadOptions& options) {
  return LoadWithDefaultRange(path, MovieLens100KFormat(), options, {1, 5});
}

absl::StatusOr<RatingsDataset> LoadMovieLensCsv(absl::string_view path,
                                                const LoadOptions& options) {
  return LoadWithDefaultRange(path, MovieLensCsvFormat(), options, {0.5, 5});
}

absl::StatusOr<RatingsDataset> LoadMovieLensDat(absl::string_view path,
                                                const LoadOptions& options) {
  return LoadWithDefaultRange(path, MovieLensDatFormat(), options, {0.5, 5});
}

absl::StatusOr<RatingsDataset> LoadDelimited(absl::string_view path, const DelimitedFormat& format,
                                             const LoadOptions& options) {
  if (absl::Status s = CheckFormat(format, options); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", s.message()));
  }
  absl::StatusOr<LineReader> reader = LineReader::Open(path);
  if (!reader.ok()) return reader.status();
  DelimitedParser parser(format, options, std::string(path));
  RatingsBuilder builder{std::string(path)};

  absl::string_view line;
  int64_t ratings = 0;
  int64_t first_blank = 0;  // a blank line is fine only if nothing but blank lines follows it
  if (format.has_header) {
    if (!reader->Next(line)) {
      if (!reader->status().ok()) return reader->status();
      return absl::InvalidArgumentError(absl::StrCat(path, ": file is empty"));
    }
    if (!format.expected_header.empty() && line != format.expected_header) {
      return parser.Error(1, absl::StrCat("bad header: expected \"", format.expected_header,
                                          "\", found \"", line, "\""));
    }
  }
  while (reader->Next(line)) {
    if (line.empty()) {
      if (first_blank == 0) first_blank = reader->line_number();
      continue;
    }
    if (first_blank != 0) {
      return parser.Error(first_blank, "empty line before the end of the file");
    }
    if (absl::Status s = parser.ParseLine(line, reader->line_number(), builder); !s.ok()) return s;
    ++ratings;
  }
  if (!reader->status().ok()) return reader->status();
  if (ratings == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, format.has_header ? ": no ratings after the header" : ": file is empty"));
  }
  return std::move(builder).Build(options.duplicates);
}

}  // namespace fedmf::data
