// Named synthetic shapes, the NAME of a --data spec "synthetic:NAME[,KEY=VALUE...]": each stands
// in for a real dataset at its size, its skew and its ratio of personal to popularity ranking.
// docs/results/synthetic-data.md measures each against its real dataset, with the commands.
//   ml-100k  943 users x 1,682 items, ~100k ratings 1-5 (MovieLens 100K); the default
//   ml-20m   138,493 x 26,744, ~20M ratings 1-5 (MovieLens 20M's size and activity)
//   gowalla  29,858 x 40,981, ~1M implicit interactions (the LightGCN Gowalla split)
//   legacy   ML-100K's size with exposure by popularity alone: fedmf's generator before taste
//            clusters, byte for byte, for results measured on it
#ifndef FEDMF_COMMON_DATA_SYNTHETIC_SHAPES_H_
#define FEDMF_COMMON_DATA_SYNTHETIC_SHAPES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/data/synthetic.h"

namespace fedmf::data {

// InvalidArgument naming the known shapes for an unknown name.
absl::StatusOr<SyntheticConfig> SyntheticShape(absl::string_view name);

std::vector<std::string> SyntheticShapeNames();

}  // namespace fedmf::data

#endif  // FEDMF_COMMON_DATA_SYNTHETIC_SHAPES_H_
