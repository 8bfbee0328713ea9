// Loaders of rating files into a RatingsDataset: MovieLens 100K `u.data`, MovieLens `ratings.csv`,
// MovieLens 1M/10M `ratings.dat`, and any delimited text with chosen columns. All or nothing: a
// malformed file gives InvalidArgument naming file, 1-based line and problem; a missing file
// NotFound. LightGCN's user-item lists (Gowalla, Yelp2018, Amazon-Book): user_item_lists.h.
#ifndef FEDMF_COMMON_DATA_LOADERS_H_
#define FEDMF_COMMON_DATA_LOADERS_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/data/ratings_dataset.h"

namespace fedmf::data {

// Inclusive range every rating must lie in.
struct RatingRange {
  double min = 1;
  double max = 5;
};

struct LoadOptions {
  // Declared rating range; nullopt means the format's default: [1, 5] for u.data (ML-100K),
  // [0.5, 5] for ratings.csv (ml-latest, ML-20M) and ratings.dat (ML-10M uses half stars; ML-1M's
  // 1..5 integers fit too; pass [1, 5] to be strict about ML-1M), and no check for LoadDelimited.
  std::optional<RatingRange> range;
  DuplicatePolicy duplicates = DuplicatePolicy::kError;
};

// Layout of a generic delimited file. Columns are 0-based.
struct DelimitedFormat {
  std::string delimiter = ",";  // one or more characters, e.g. "\t", ";", "::"
  bool has_header = false;      // the first line is a header, not a rating
  std::string expected_header;  // if non-empty (with has_header), the header must equal this
  int user_column = 0;
  int item_column = 1;
  int rating_column = 2;
  std::optional<int> timestamp_column;  // integer timestamps when set
  // Fields per line; 0 means 1 + the largest column used above.
  int num_columns = 0;
  // false: exactly num_columns fields per line; true: at least num_columns.
  bool allow_extra_columns = false;
};

// The formats of the MovieLens loaders below, for reuse and for messages.
DelimitedFormat MovieLens100KFormat();  // "user\titem\trating\ttimestamp", no header
DelimitedFormat MovieLensCsvFormat();   // header "userId,movieId,rating,timestamp"
DelimitedFormat MovieLensDatFormat();   // "UserID::MovieID::Rating::Timestamp", no header

absl::StatusOr<RatingsDataset> LoadMovieLens100K(absl::string_view path,
                                                 const LoadOptions& options = {});
absl::StatusOr<RatingsDataset> LoadMovieLensCsv(absl::string_view path,
                                                const LoadOptions& options = {});
absl::StatusOr<RatingsDataset> LoadMovieLensDat(absl::string_view path,
                                                const LoadOptions& options = {});

// Lines: CRLF or LF endings, optional UTF-8 BOM, blank lines allowed only at the end of the file.
// User and item fields are kept verbatim as original ids (non-empty); the rating is a finite
// decimal number, the timestamp a decimal integer, both strict ("3x", " 3", "nan" are errors).
// A file without any rating is an error.
absl::StatusOr<RatingsDataset> LoadDelimited(absl::string_view path, const DelimitedFormat& format,
                                             const LoadOptions& options = {});

}  // namespace fedmf::data

#endif  // FEDMF_COMMON_DATA_LOADERS_H_
