#include "common/mf/model_io.h"

#include "absl/strings/str_cat.h"
#include "common/util/atomic_file.h"
#include "fedmf/v1/model.pb.h"

namespace fedmf::mf {
namespace {

void ToProto(const FactorMatrix& m, v1::Matrix& out) {
  out.set_rows(static_cast<uint32_t>(m.rows()));
  out.set_cols(static_cast<uint32_t>(m.cols()));
  out.mutable_values()->Add(m.data(), m.data() + m.size());
}

absl::StatusOr<FactorMatrix> FromProto(const v1::Matrix& m, absl::string_view name,
                                       const std::string& path) {
  const uint64_t expected = static_cast<uint64_t>(m.rows()) * m.cols();
  if (static_cast<uint64_t>(m.values_size()) != expected) {
    return absl::DataLossError(absl::StrCat(path, ": ", name, " is ", m.rows(), " x ", m.cols(),
                                            " but holds ", m.values_size(), " values"));
  }
  FactorMatrix out(m.rows(), m.cols());
  std::copy(m.values().begin(), m.values().end(), out.data());
  return out;
}

absl::StatusOr<Eigen::VectorXd> BiasFromProto(const google::protobuf::RepeatedField<double>& b,
                                              int64_t expected, absl::string_view name,
                                              const std::string& path) {
  if (b.empty()) return Eigen::VectorXd();
  if (b.size() != expected) {
    return absl::DataLossError(
        absl::StrCat(path, ": ", name, " has ", b.size(), " entries, expected ", expected));
  }
  return Eigen::Map<const Eigen::VectorXd>(b.data(), b.size());
}

}  // namespace

absl::Status SaveModel(const FactorModel& model, const data::IdMaps& ids, const std::string& path) {
  if (ids.user_ids.size() != static_cast<size_t>(model.num_users()) ||
      ids.item_ids.size() != static_cast<size_t>(model.num_items())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "id maps (", ids.user_ids.size(), " users, ", ids.item_ids.size(),
        " items) do not match the model (", model.num_users(), " x ", model.num_items(), ")"));
  }
  v1::FactorModel proto;
  proto.set_algorithm(model.algorithm);
  ToProto(model.user_factors, *proto.mutable_user_factors());
  ToProto(model.item_factors, *proto.mutable_item_factors());
  proto.set_global_mean(model.global_mean);
  proto.mutable_user_bias()->Add(model.user_bias.data(),
                                 model.user_bias.data() + model.user_bias.size());
  proto.mutable_item_bias()->Add(model.item_bias.data(),
                                 model.item_bias.data() + model.item_bias.size());
  for (const std::string& id : ids.user_ids) proto.add_user_ids(id);
  for (const std::string& id : ids.item_ids) proto.add_item_ids(id);
  std::string bytes;
  if (!proto.SerializeToString(&bytes)) return absl::InternalError("cannot serialize model");
  return WriteFileAtomically(path, bytes);
}

absl::StatusOr<ModelWithIds> LoadModel(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  v1::FactorModel proto;
  if (!proto.ParseFromString(*bytes)) {
    return absl::DataLossError(absl::StrCat(path, ": not a fedmf.v1.FactorModel protobuf"));
  }
  ModelWithIds out;
  out.model.algorithm = proto.algorithm();
  auto users = FromProto(proto.user_factors(), "user_factors", path);
  if (!users.ok()) return users.status();
  auto items = FromProto(proto.item_factors(), "item_factors", path);
  if (!items.ok()) return items.status();
  if (users->cols() != items->cols()) {
    return absl::DataLossError(absl::StrCat(path, ": user rank ", users->cols(),
                                            " differs from item rank ", items->cols()));
  }
  out.model.user_factors = *std::move(users);
  out.model.item_factors = *std::move(items);
  out.model.global_mean = proto.global_mean();
  auto user_bias = BiasFromProto(proto.user_bias(), out.model.num_users(), "user_bias", path);
  if (!user_bias.ok()) return user_bias.status();
  auto item_bias = BiasFromProto(proto.item_bias(), out.model.num_items(), "item_bias", path);
  if (!item_bias.ok()) return item_bias.status();
  out.model.user_bias = *std::move(user_bias);
  out.model.item_bias = *std::move(item_bias);
  if (proto.user_ids_size() != out.model.num_users() ||
      proto.item_ids_size() != out.model.num_items()) {
    return absl::DataLossError(absl::StrCat(
        path, ": ", proto.user_ids_size(), " user ids and ", proto.item_ids_size(),
        " item ids for a ", out.model.num_users(), " x ", out.model.num_items(), " model"));
  }
  out.user_ids.assign(proto.user_ids().begin(), proto.user_ids().end());
  out.item_ids.assign(proto.item_ids().begin(), proto.item_ids().end());
  return out;
}

}  // namespace fedmf::mf
