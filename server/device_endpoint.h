// What a device process reaches, however the server is deployed (docs/scale-out.md, section 2):
// the coordinator in one process (`single`), or one of the fronts that hold the device streams
// when the aggregation runs on a combiner. A device registers its users (Register: a session
// token), then opens one stream that presents the token (StreamHandler::OnStreamOpen) and carries
// its messages both ways. The gRPC services, fedmf-sim's in-process clients and the tests' fake
// clients are written against this, so each runs unchanged against either role.
#ifndef FEDMF_SERVER_DEVICE_ENDPOINT_H_
#define FEDMF_SERVER_DEVICE_ENDPOINT_H_

#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "fedmf/v1/federation.pb.h"
#include "server/connection.h"
#include "server/model_store.h"

namespace fedmf::server {

class DeviceEndpoint : public StreamHandler {
 public:
  // Fills `response` (the session token, and what the server knows of the run) or refuses:
  // Registry::Register's errors. `identity`: the client's verified TLS identity (empty: none).
  virtual absl::Status Register(const v1::RegisterRequest& request, v1::RegisterResponse& response,
                                absl::string_view identity) = 0;
  // OK when `session_token` may open a stream from `identity` (Registry::CheckPending).
  virtual absl::Status CheckSessionToken(absl::string_view session_token,
                                         absl::string_view identity) = 0;
  // A fresh id for the next Connection.
  virtual uint64_t NextConnectionId() = 0;
  // The published models its devices may download: the coordinator's store, or a front's copy of
  // the combiner's (model_store.h). Null: none are served.
  virtual ModelStore* published_models() const = 0;

  // Published model `version` for a Models.Download that presents `session_token` from
  // `identity` (checked as for a stream, CheckSessionToken; the registration stays pending):
  // UNAUTHENTICATED for an unknown or expired token, PERMISSION_DENIED for one issued to another
  // TLS identity, NOT_FOUND for a version published_models() does not keep (or none are served).
  absl::StatusOr<std::shared_ptr<const ModelStore::Published>> ModelForDownload(
      absl::string_view session_token, absl::string_view identity, int64_t version);

 protected:
  // Sets `response.latest_model` to the newest of published_models() (unset: none).
  void NameLatestModel(v1::RegisterResponse& response) const;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_DEVICE_ENDPOINT_H_
