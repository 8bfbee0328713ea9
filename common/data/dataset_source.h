// The one syntax of every binary's --data flag, and a one-line dataset summary for progress logs.
//
//   synthetic                        GenerateSynthetic() with the default SyntheticConfig (the
//                                    ml-100k shape)
//   synthetic:[NAME][,KEY=VALUE...]  the named shape (synthetic_shapes.h: ml-100k, ml-20m,
//                                    gowalla, legacy; default ml-100k), then fields overridden;
//                                    keys (SyntheticConfig field): users (num_users), items
//                                    (num_items), rank, per_user (ratings_per_user), density,
//                                    item_exp (item_popularity_exponent), item_offset
//                                    (item_popularity_offset), user_exp (user_activity_exponent),
//                                    user_offset (user_activity_offset), min_per_user, clusters
//                                    (taste_clusters), taste (taste_strength), spread
//                                    (taste_spread), pop_share (popularity_share), implicit
//                                    (0|1), stars (star_cuts, A/B/C/D), noise (noise_std), mean
//                                    (mean_score), user_bias,
//                                    item_bias, interaction (the *_std fields), seed; per_user
//                                    and density exclude each other
//   ml-100k:PATH[?OPTIONS]           LoadMovieLens100K (u.data)
//   ml-csv:PATH[?OPTIONS]            LoadMovieLensCsv (ratings.csv)
//   ml-dat:PATH[?OPTIONS]            LoadMovieLensDat (ratings.dat)
//   csv:PATH[?OPTIONS]               LoadDelimited
//   user-items:PATH[?test=PATH]      LoadUserItemLists (LightGCN's Gowalla/Yelp2018/Amazon-Book
//                                    train.txt; test= adds test.txt as the predefined test part,
//                                    --split=predefined)
//
// OPTIONS are KEY=VALUE joined by '&'. Every rating file format takes min=X&max=Y (the declared
// rating range, both or neither) and duplicates=error|first|last; user-items only test=PATH (its
// interactions are all 1, none may repeat). csv also takes sep=STRING (or tab,
// space, comma, semicolon, pipe; default ','), header=0|1, user=N, item=N, rating=N (0-based
// columns; default 0, 1, 2), timestamp=N|none, columns=N (fields per line) and extra=0|1 (allow
// more fields than columns). PATH may not contain '?'. Unknown keys, repeated keys and bad values
// are InvalidArgument errors naming the key and the value.
#ifndef FEDMF_COMMON_DATA_DATASET_SOURCE_H_
#define FEDMF_COMMON_DATA_DATASET_SOURCE_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/data/loaders.h"
#include "common/data/ratings_dataset.h"
#include "common/data/synthetic.h"
#include "common/data/user_item_lists.h"

namespace fedmf::data {

// A parsed --data spec.
struct DataSpec {
  enum class Kind {
    kSynthetic,
    kMovieLens100K,
    kMovieLensCsv,
    kMovieLensDat,
    kDelimited,
    kUserItemLists
  };
  Kind kind = Kind::kSynthetic;
  SyntheticConfig synthetic;             // kSynthetic
  std::string path;                      // file kinds
  DelimitedFormat format;                // kDelimited
  LoadOptions options;                   // rating file kinds
  std::optional<std::string> test_path;  // kUserItemLists: the predefined test part
};

absl::StatusOr<DataSpec> ParseDataSpec(absl::string_view spec);
absl::StatusOr<RatingsDataset> LoadDataset(const DataSpec& spec);
// ParseDataSpec, then LoadDataset.
absl::StatusOr<RatingsDataset> LoadDataset(absl::string_view spec);

// "users=943 items=1682 ratings=100000 density=0.0630 mean_rating=3.530" (key=value, one line).
std::string DescribeDataset(const RatingsDataset& data);

}  // namespace fedmf::data

#endif  // FEDMF_COMMON_DATA_DATASET_SOURCE_H_
