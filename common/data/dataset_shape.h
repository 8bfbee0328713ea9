// The shape of a ratings dataset in the numbers that calibrate a synthetic stand-in against real
// data (docs/results/synthetic-data.md): ratings per user and per item, how much of the data the
// most-rated tenth of items holds, and the share of each rating value. Train and predefined test
// parts count alike.
#ifndef FEDMF_COMMON_DATA_DATASET_SHAPE_H_
#define FEDMF_COMMON_DATA_DATASET_SHAPE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/data/ratings_dataset.h"

namespace fedmf::data {

// Of the ratings per user (or per item): every user counts, also one with none.
struct CountSummary {
  int64_t min = 0;
  double median = 0;  // the mean of the two middle counts when there are evenly many
  int64_t max = 0;
};

struct DatasetShape {
  int32_t users = 0;
  int32_t items = 0;
  int64_t ratings = 0;
  CountSummary per_user;
  CountSummary per_item;
  // Share of all ratings on the ceil(items / 10) most-rated items.
  double top_tenth_item_share = 0;
  // (rating value, share of all ratings), ascending by value.
  std::vector<std::pair<float, double>> rating_shares;
};

DatasetShape MeasureShape(const RatingsDataset& data);

// "users=943 items=1682 ratings=100000 per_user_min=20 per_user_median=65 ... stars_1=0.061 ..."
// (key=value; a rating value v appears as stars_<v>).
std::string DescribeShape(const DatasetShape& shape);

}  // namespace fedmf::data

#endif  // FEDMF_COMMON_DATA_DATASET_SHAPE_H_
