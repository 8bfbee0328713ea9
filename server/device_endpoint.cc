#include "server/device_endpoint.h"

#include "absl/strings/str_cat.h"

namespace fedmf::server {

absl::StatusOr<std::shared_ptr<const ModelStore::Published>> DeviceEndpoint::ModelForDownload(
    absl::string_view session_token, absl::string_view identity, int64_t version) {
  if (absl::Status known = CheckSessionToken(session_token, identity); !known.ok()) {
    // NOT_FOUND is this call's answer for a version the store does not keep.
    if (absl::IsNotFound(known)) return absl::UnauthenticatedError(known.message());
    return known;
  }
  if (const ModelStore* models = published_models()) return models->ForDownload(version);
  return absl::NotFoundError(
      absl::StrCat("model version ", version, " is not kept (none are published here)"));
}

void DeviceEndpoint::NameLatestModel(v1::RegisterResponse& response) const {
  const ModelStore* models = published_models();
  if (models == nullptr) return;
  if (std::shared_ptr<const ModelStore::Published> latest = models->Latest()) {
    *response.mutable_latest_model() = latest->version;
  }
}

}  // namespace fedmf::server
