#include "common/data/dataset_shape.h"

#include <algorithm>
#include <functional>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace fedmf::data {
namespace {

CountSummary Summarize(std::vector<int64_t> counts) {
  CountSummary s;
  if (counts.empty()) return s;
  std::sort(counts.begin(), counts.end());
  const size_t n = counts.size();
  s.min = counts.front();
  s.max = counts.back();
  s.median = n % 2 == 1 ? counts[n / 2] : (counts[n / 2 - 1] + counts[n / 2]) / 2.0;
  return s;
}

std::string CountFields(absl::string_view prefix, const CountSummary& s) {
  return absl::StrFormat(" %s_min=%d %s_median=%g %s_max=%d", prefix, s.min, prefix, s.median,
                         prefix, s.max);
}

}  // namespace

DatasetShape MeasureShape(const RatingsDataset& data) {
  DatasetShape shape;
  shape.users = data.num_users();
  shape.items = data.num_items();
  shape.ratings = data.num_ratings();
  std::vector<int64_t> per_user(data.num_users());
  for (int32_t u = 0; u < data.num_users(); ++u) per_user[u] = data.user(u).size();
  std::vector<int64_t> per_item(data.num_items());
  for (int32_t i = 0; i < data.num_items(); ++i) per_item[i] = data.item(i).size();
  shape.per_user = Summarize(per_user);
  shape.per_item = Summarize(per_item);

  std::sort(per_item.begin(), per_item.end(), std::greater<>());
  const size_t top = (per_item.size() + 9) / 10;
  int64_t top_ratings = 0;
  for (size_t k = 0; k < top && k < per_item.size(); ++k) top_ratings += per_item[k];
  std::map<float, int64_t> values;
  for (int64_t k = 0; k < data.num_ratings(); ++k) ++values[data.rating(k).rating];
  if (shape.ratings > 0) {
    shape.top_tenth_item_share = static_cast<double>(top_ratings) / shape.ratings;
    for (const auto& [value, count] : values) {
      shape.rating_shares.emplace_back(value, static_cast<double>(count) / shape.ratings);
    }
  }
  return shape;
}

std::string DescribeShape(const DatasetShape& shape) {
  std::string line =
      absl::StrFormat("users=%d items=%d ratings=%d", shape.users, shape.items, shape.ratings);
  absl::StrAppend(&line, CountFields("per_user", shape.per_user),
                  CountFields("per_item", shape.per_item),
                  absl::StrFormat(" top_tenth_item_share=%.4f", shape.top_tenth_item_share));
  for (const auto& [value, share] : shape.rating_shares) {
    absl::StrAppend(&line, absl::StrFormat(" stars_%g=%.4f", value, share));
  }
  return line;
}

}  // namespace fedmf::data
