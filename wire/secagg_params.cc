#include "wire/secagg_params.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace fedmf::wire {

v1::SecAggParams ToProto(const secagg::SessionConfig& config) {
  return secagg::ConfigToProto(config);
}

absl::StatusOr<secagg::SessionConfig> FromProto(const v1::SecAggParams& params) {
  return secagg::ConfigFromProto(params);
}

absl::StatusOr<std::shared_ptr<secagg::MapSigningKeyDirectory>> DirectoryFromProto(
    const google::protobuf::RepeatedPtrField<v1::SigningKeys>& keys) {
  auto directory = std::make_shared<secagg::MapSigningKeyDirectory>();
  absl::flat_hash_set<uint32_t> seen;
  for (int i = 0; i < keys.size(); ++i) {
    const std::string& bytes = keys[i].public_key();
    absl::StatusOr<crypto::Ed25519PublicKey> key = crypto::Ed25519PublicKey::FromBytes(
        absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
    if (!key.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("signing_keys[", i, "]: ", key.status().message()));
    }
    for (uint32_t id : keys[i].participant_ids()) {
      if (!seen.insert(id).second) {
        return absl::InvalidArgumentError(
            absl::StrCat("signing_keys[", i, "]: participant ", id, " is listed twice"));
      }
      directory->Add(id, *key);
    }
  }
  return directory;
}

google::protobuf::RepeatedPtrField<v1::SigningKeys> DirectoryToProto(
    const secagg::SigningKeyDirectory& directory, absl::Span<const uint32_t> ids) {
  google::protobuf::RepeatedPtrField<v1::SigningKeys> keys;
  absl::flat_hash_map<std::string, v1::SigningKeys*> by_key;
  for (uint32_t id : ids) {
    const std::optional<crypto::Ed25519PublicKey> key = directory.Find(id);
    if (!key.has_value()) continue;
    std::string bytes(key->bytes().begin(), key->bytes().end());
    v1::SigningKeys*& entry = by_key[bytes];
    if (entry == nullptr) {
      entry = keys.Add();
      entry->set_public_key(std::move(bytes));
    }
    entry->add_participant_ids(id);
  }
  return keys;
}

}  // namespace fedmf::wire
