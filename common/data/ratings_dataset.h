// RatingsDataset: an immutable set of (user, item, rating[, timestamp]) with dense indices, stored
// as CSR by user and by item, plus the original id of every dense index, and optionally the test
// part of a split the data came with (predefined_test()). RatingsBuilder is the only way to make
// one from raw ids; Subset() makes datasets over the same index space (used by splits).
#ifndef FEDMF_COMMON_DATA_RATINGS_DATASET_H_
#define FEDMF_COMMON_DATA_RATINGS_DATASET_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace fedmf::data {

// Original ids of dense users and items. Shared (read-only) between a dataset and its subsets.
struct IdMaps {
  std::vector<std::string> user_ids;  // dense user index -> original id
  std::vector<std::string> item_ids;  // dense item index -> original id
  absl::flat_hash_map<std::string, int32_t> user_index;
  absl::flat_hash_map<std::string, int32_t> item_index;
};

// One rating in dense indices.
struct Rating {
  int32_t user = 0;
  int32_t item = 0;
  float rating = 0;
  int64_t timestamp = 0;  // 0 when the dataset has no timestamps
};

// The ratings of one user (sorted by item) or of one item (sorted by user).
struct RatingRow {
  absl::Span<const int32_t> indices;  // items of a user row, users of an item column
  absl::Span<const float> ratings;
  absl::Span<const int64_t> timestamps;  // empty when the dataset has no timestamps
  int64_t size() const { return static_cast<int64_t>(indices.size()); }
};

class RatingsDataset {
 public:
  RatingsDataset() = default;

  int32_t num_users() const;
  int32_t num_items() const;
  int64_t num_ratings() const;
  bool has_timestamps() const;

  // Ratings of dense user u, sorted by item index. Users with no ratings have an empty row.
  RatingRow user(int32_t u) const;
  // Ratings of dense item i, sorted by user index.
  RatingRow item(int32_t i) const;

  // Rating number `k` in by-user order (0 <= k < num_ratings()); the index used by Subset().
  Rating rating(int64_t k) const;

  const std::string& user_id(int32_t u) const;
  const std::string& item_id(int32_t i) const;
  std::optional<int32_t> FindUser(absl::string_view original_id) const;
  std::optional<int32_t> FindItem(absl::string_view original_id) const;
  const std::shared_ptr<const IdMaps>& id_maps() const;

  // Mean of all ratings (0 for an empty dataset).
  double MeanRating() const;

  // A dataset with the same users, items and id maps holding only the given ratings (indices in
  // by-user order, any order, no repeats). Used to build train/test splits; a subset has no
  // predefined test part.
  RatingsDataset Subset(absl::Span<const int64_t> rating_indices) const;

  // The test part of the split the data came with (e.g. the test.txt of LightGCN's Gowalla split):
  // rating indices in by-user order, ascending. Empty when the data came without one
  // (RatingsBuilder::BeginPredefinedTest). `--split=predefined` uses it (split_spec.h).
  absl::Span<const int64_t> predefined_test() const { return predefined_test_; }

 private:
  friend class RatingsBuilder;
  // Builds both CSR layouts from ratings sorted by (user, item), without duplicates.
  RatingsDataset(std::shared_ptr<const IdMaps> ids, std::vector<Rating> sorted, bool has_timestamps,
                 std::vector<int64_t> predefined_test = {});

  std::shared_ptr<const IdMaps> ids_;
  bool has_timestamps_ = false;
  std::vector<int64_t> predefined_test_;
  // By user: row u spans [user_offsets_[u], user_offsets_[u + 1]).
  std::vector<int64_t> user_offsets_;
  std::vector<int32_t> user_items_;
  std::vector<float> user_ratings_;
  std::vector<int64_t> user_timestamps_;
  // By item: column i spans [item_offsets_[i], item_offsets_[i + 1]).
  std::vector<int64_t> item_offsets_;
  std::vector<int32_t> item_users_;
  std::vector<float> item_ratings_;
  std::vector<int64_t> item_timestamps_;
};

// What to do when the same (user, item) pair appears more than once.
enum class DuplicatePolicy { kError, kKeepFirst, kKeepLast };

// Collects ratings with original ids (assigning dense indices in first-seen order) and builds a
// dataset. `source` and `line` only serve error messages ("u.data:17: ...").
class RatingsBuilder {
 public:
  explicit RatingsBuilder(std::string source = "<memory>");

  void Add(absl::string_view user_id, absl::string_view item_id, float rating,
           std::optional<int64_t> timestamp, int64_t line = 0);
  // Give an id its dense index now, even if it never gets a rating (e.g. a generator's full
  // catalogue); an id already known keeps its index.
  void AddUser(absl::string_view user_id);
  void AddItem(absl::string_view item_id);
  // The ratings added from now on are the dataset's predefined test part (predefined_test()), those
  // added before it the train part. A duplicate kept by the policy stays in the part it came from.
  void BeginPredefinedTest();

  // Fails on duplicates under kError (naming both lines), or if timestamps are given for some
  // ratings but not others.
  absl::StatusOr<RatingsDataset> Build(DuplicatePolicy duplicates = DuplicatePolicy::kError) &&;

 private:
  std::string source_;
  IdMaps ids_;
  std::vector<Rating> ratings_;
  std::vector<int64_t> lines_;
  int64_t with_timestamp_ = 0;
  std::optional<int64_t> test_from_;  // ratings_[k] with k >= *test_from_ are predefined test
  int32_t last_user_ = -1;  // rating files are mostly grouped by user: skips most user lookups
};

}  // namespace fedmf::data

#endif  // FEDMF_COMMON_DATA_RATINGS_DATASET_H_
