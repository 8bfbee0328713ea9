#include "common/data/ratings_dataset.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace fedmf::data {
namespace {

bool ByUserThenItem(const Rating& a, const Rating& b) {
  return a.user != b.user ? a.user < b.user : a.item < b.item;
}

}  // namespace

RatingsDataset::RatingsDataset(std::shared_ptr<const IdMaps> ids, std::vector<Rating> sorted,
                               bool has_timestamps, std::vector<int64_t> predefined_test)
    : ids_(std::move(ids)),
      has_timestamps_(has_timestamps),
      predefined_test_(std::move(predefined_test)) {
  const int32_t n = static_cast<int32_t>(ids_->user_ids.size());
  const int32_t m = static_cast<int32_t>(ids_->item_ids.size());
  const size_t nnz = sorted.size();

  user_offsets_.assign(n + 1, 0);
  item_offsets_.assign(m + 1, 0);
  for (const Rating& r : sorted) {
    ++user_offsets_[r.user + 1];
    ++item_offsets_[r.item + 1];
  }
  std::partial_sum(user_offsets_.begin(), user_offsets_.end(), user_offsets_.begin());
  std::partial_sum(item_offsets_.begin(), item_offsets_.end(), item_offsets_.begin());

  user_items_.resize(nnz);
  user_ratings_.resize(nnz);
  item_users_.resize(nnz);
  item_ratings_.resize(nnz);
  if (has_timestamps_) {
    user_timestamps_.resize(nnz);
    item_timestamps_.resize(nnz);
  }
  // `sorted` is in (user, item) order, so filling item columns in that order sorts them by user.
  std::vector<int64_t> item_fill(item_offsets_.begin(), item_offsets_.end() - 1);
  for (size_t k = 0; k < nnz; ++k) {
    const Rating& r = sorted[k];
    user_items_[k] = r.item;
    user_ratings_[k] = r.rating;
    const int64_t slot = item_fill[r.item]++;
    item_users_[slot] = r.user;
    item_ratings_[slot] = r.rating;
    if (has_timestamps_) {
      user_timestamps_[k] = r.timestamp;
      item_timestamps_[slot] = r.timestamp;
    }
  }
}

int32_t RatingsDataset::num_users() const {
  return ids_ ? static_cast<int32_t>(ids_->user_ids.size()) : 0;
}
int32_t RatingsDataset::num_items() const {
  return ids_ ? static_cast<int32_t>(ids_->item_ids.size()) : 0;
}
int64_t RatingsDataset::num_ratings() const { return static_cast<int64_t>(user_items_.size()); }
bool RatingsDataset::has_timestamps() const { return has_timestamps_; }

RatingRow RatingsDataset::user(int32_t u) const {
  const int64_t begin = user_offsets_[u];
  const int64_t len = user_offsets_[u + 1] - begin;
  RatingRow row{absl::MakeConstSpan(user_items_).subspan(begin, len),
                absl::MakeConstSpan(user_ratings_).subspan(begin, len),
                {}};
  if (has_timestamps_) row.timestamps = absl::MakeConstSpan(user_timestamps_).subspan(begin, len);
  return row;
}

RatingRow RatingsDataset::item(int32_t i) const {
  const int64_t begin = item_offsets_[i];
  const int64_t len = item_offsets_[i + 1] - begin;
  RatingRow row{absl::MakeConstSpan(item_users_).subspan(begin, len),
                absl::MakeConstSpan(item_ratings_).subspan(begin, len),
                {}};
  if (has_timestamps_) row.timestamps = absl::MakeConstSpan(item_timestamps_).subspan(begin, len);
  return row;
}

Rating RatingsDataset::rating(int64_t k) const {
  // The user owning position k is the last offset <= k.
  const auto it = std::upper_bound(user_offsets_.begin(), user_offsets_.end(), k);
  Rating r;
  r.user = static_cast<int32_t>(it - user_offsets_.begin() - 1);
  r.item = user_items_[k];
  r.rating = user_ratings_[k];
  r.timestamp = has_timestamps_ ? user_timestamps_[k] : 0;
  return r;
}

const std::string& RatingsDataset::user_id(int32_t u) const { return ids_->user_ids[u]; }
const std::string& RatingsDataset::item_id(int32_t i) const { return ids_->item_ids[i]; }

std::optional<int32_t> RatingsDataset::FindUser(absl::string_view original_id) const {
  if (!ids_) return std::nullopt;
  const auto it = ids_->user_index.find(original_id);
  if (it == ids_->user_index.end()) return std::nullopt;
  return it->second;
}

std::optional<int32_t> RatingsDataset::FindItem(absl::string_view original_id) const {
  if (!ids_) return std::nullopt;
  const auto it = ids_->item_index.find(original_id);
  if (it == ids_->item_index.end()) return std::nullopt;
  return it->second;
}

const std::shared_ptr<const IdMaps>& RatingsDataset::id_maps() const { return ids_; }

double RatingsDataset::MeanRating() const {
  if (user_ratings_.empty()) return 0;
  double sum = 0;
  for (float r : user_ratings_) sum += r;
  return sum / static_cast<double>(user_ratings_.size());
}

RatingsDataset RatingsDataset::Subset(absl::Span<const int64_t> rating_indices) const {
  std::vector<Rating> picked;
  picked.reserve(rating_indices.size());
  for (int64_t k : rating_indices) picked.push_back(rating(k));
  std::sort(picked.begin(), picked.end(), ByUserThenItem);
  return RatingsDataset(ids_, std::move(picked), has_timestamps_);
}

RatingsBuilder::RatingsBuilder(std::string source) : source_(std::move(source)) {}

namespace {

// Dense index of `id`, assigned in first-seen order.
int32_t Intern(absl::string_view id, std::vector<std::string>& ids,
               absl::flat_hash_map<std::string, int32_t>& index) {
  const auto [it, inserted] = index.try_emplace(id, static_cast<int32_t>(ids.size()));
  if (inserted) ids.emplace_back(id);
  return it->second;
}

}  // namespace

void RatingsBuilder::Add(absl::string_view user_id, absl::string_view item_id, float rating,
                         std::optional<int64_t> timestamp, int64_t line) {
  Rating r;
  if (last_user_ < 0 || ids_.user_ids[last_user_] != user_id) {
    last_user_ = Intern(user_id, ids_.user_ids, ids_.user_index);
  }
  r.user = last_user_;
  r.item = Intern(item_id, ids_.item_ids, ids_.item_index);
  r.rating = rating;
  r.timestamp = timestamp.value_or(0);
  if (timestamp.has_value()) ++with_timestamp_;
  ratings_.push_back(r);
  lines_.push_back(line);
}

void RatingsBuilder::AddUser(absl::string_view user_id) {
  Intern(user_id, ids_.user_ids, ids_.user_index);
}

void RatingsBuilder::AddItem(absl::string_view item_id) {
  Intern(item_id, ids_.item_ids, ids_.item_index);
}

void RatingsBuilder::BeginPredefinedTest() { test_from_ = static_cast<int64_t>(ratings_.size()); }

absl::StatusOr<RatingsDataset> RatingsBuilder::Build(DuplicatePolicy duplicates) && {
  const int64_t total = static_cast<int64_t>(ratings_.size());
  if (with_timestamp_ != 0 && with_timestamp_ != total) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_, ": ", with_timestamp_, " of ", total,
                     " ratings have a timestamp; either all or none must"));
  }
  // Stable order by (user, item): a counting sort by user, then a stable sort of each user's
  // run by item. Linear in the input apart from the short per-user sorts (20M lines stay fast),
  // and ties keep input order so "first"/"last" follow the file.
  std::vector<int64_t> user_start(ids_.user_ids.size() + 1, 0);
  for (const Rating& r : ratings_) ++user_start[r.user + 1];
  std::partial_sum(user_start.begin(), user_start.end(), user_start.begin());
  std::vector<int64_t> order(total);
  {
    std::vector<int64_t> cursor(user_start.begin(), user_start.end() - 1);
    for (int64_t k = 0; k < total; ++k) order[cursor[ratings_[k].user]++] = k;
  }
  for (size_t u = 0; u + 1 < user_start.size(); ++u) {
    std::stable_sort(order.begin() + user_start[u], order.begin() + user_start[u + 1],
                     [&](int64_t a, int64_t b) { return ratings_[a].item < ratings_[b].item; });
  }

  std::vector<Rating> sorted;
  sorted.reserve(total);
  // in_test[k]: sorted[k] came from the predefined test part.
  std::vector<bool> in_test;
  const auto is_test = [&](int64_t pos) {
    return test_from_.has_value() && order[pos] >= *test_from_;
  };
  for (int64_t pos = 0; pos < total; ++pos) {
    const Rating& r = ratings_[order[pos]];
    const bool repeats =
        !sorted.empty() && sorted.back().user == r.user && sorted.back().item == r.item;
    if (!repeats) {
      sorted.push_back(r);
      in_test.push_back(is_test(pos));
      continue;
    }
    switch (duplicates) {
      case DuplicatePolicy::kError:
        return absl::InvalidArgumentError(
            absl::StrCat(source_, ":", lines_[order[pos]], ": duplicate rating for user '",
                         ids_.user_ids[r.user], "' item '", ids_.item_ids[r.item],
                         "' (first at line ", lines_[order[pos - 1]], ")"));
      case DuplicatePolicy::kKeepFirst:
        break;
      case DuplicatePolicy::kKeepLast:
        sorted.back() = r;
        in_test.back() = is_test(pos);
        break;
    }
  }
  std::vector<int64_t> predefined_test;
  for (size_t k = 0; k < in_test.size(); ++k) {
    if (in_test[k]) predefined_test.push_back(static_cast<int64_t>(k));
  }
  // Release the inputs before the CSR arrays are allocated: it lowers the peak memory of a
  // 20M-rating load by about a third.
  std::vector<Rating>().swap(ratings_);
  std::vector<int64_t>().swap(lines_);
  std::vector<int64_t>().swap(order);
  auto ids = std::make_shared<const IdMaps>(std::move(ids_));
  return RatingsDataset(std::move(ids), std::move(sorted), with_timestamp_ != 0,
                        std::move(predefined_test));
}

}  // namespace fedmf::data
