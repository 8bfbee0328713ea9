#include "client/secagg_params.h"

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace fedmf::client {

v1::SecAggParams ToProto(const secagg::SessionConfig& config) {
  v1::SecAggParams p;
  p.set_context(config.context);
  p.set_num_clients(config.num_clients);
  p.set_threshold(config.threshold);
  p.set_bits(config.bits);
  p.set_length(config.length);
  p.set_harary_graph(config.graph == secagg::GraphKind::kHarary);
  p.set_degree(config.degree);
  p.set_signatures(config.signatures);
  p.set_consistency_check(config.consistency_check);
  return p;
}

absl::StatusOr<secagg::SessionConfig> FromProto(const v1::SecAggParams& params) {
  secagg::SessionConfig config;
  config.context = params.context();
  config.num_clients = params.num_clients();
  config.threshold = params.threshold();
  config.bits = params.bits();
  config.length = static_cast<size_t>(params.length());
  config.graph = params.harary_graph() ? secagg::GraphKind::kHarary : secagg::GraphKind::kComplete;
  config.degree = params.degree();
  config.signatures = params.signatures();
  config.consistency_check = params.consistency_check();
  if (absl::Status s = secagg::ValidateConfig(config); !s.ok()) return s;
  return config;
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

}  // namespace fedmf::client
