// Saving and loading a FactorModel with the original user/item ids, as a fedmf.v1.FactorModel
// protobuf written atomically. Loading validates every dimension before building the model.
#ifndef FEDMF_COMMON_MF_MODEL_IO_H_
#define FEDMF_COMMON_MF_MODEL_IO_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/data/ratings_dataset.h"
#include "common/mf/factor_model.h"

namespace fedmf::mf {

struct ModelWithIds {
  FactorModel model;
  std::vector<std::string> user_ids;  // original id of each dense user index
  std::vector<std::string> item_ids;  // original id of each dense item index
};

// `ids` must describe the model's index space (as many users and items as the model has rows).
absl::Status SaveModel(const FactorModel& model, const data::IdMaps& ids, const std::string& path);

absl::StatusOr<ModelWithIds> LoadModel(const std::string& path);

}  // namespace fedmf::mf

#endif  // FEDMF_COMMON_MF_MODEL_IO_H_
