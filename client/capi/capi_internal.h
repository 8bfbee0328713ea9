// What stands behind the C API's opaque handles (client/include/fedmf/fedmf_client.h) and the
// helpers every entry point uses to turn Status values and C++ exceptions into fedmf_status
// codes plus the calling thread's error message. Internal: not installed, not exported.
#ifndef FEDMF_CLIENT_CAPI_CAPI_INTERNAL_H_
#define FEDMF_CLIENT_CAPI_CAPI_INTERNAL_H_

#include <array>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "client/include/fedmf/fedmf_client.h"
#include "client/model_download.h"
#include "client/participant_host.h"
#include "fedmf/v1/mobile.pb.h"

// One on-device user: a one-participant host over ratings this handle owns.
struct fedmf_participant {
  fedmf::v1::ParticipantConfig config;
  std::unique_ptr<fedmf::client::ParticipantHost> host;
  std::vector<int32_t> items;    // ascending
  std::vector<float> ratings;    // ratings[k] rates items[k]
  bool registered_done = false;  // a RegisterResponse said training_done
  // The newest published model the last RegisterResponse named (version 0: none), and the
  // download of it in progress, if any (fedmf_participant_download_request).
  fedmf::v1::ModelVersion latest_published;
  std::optional<fedmf::client::ModelDownload> download;
  // The id (SHA-256 of the SavedModel blob) of the host's model at model_version, computed when
  // first asked for after the model changed: once per model, not on every save.
  struct ModelId {
    uint64_t model_version = 0;
    std::array<uint8_t, 32> sha256{};
  };
  mutable std::optional<ModelId> model_id;

  // Points the host's participant at `items` and `ratings` (after every change of them).
  absl::Status SyncRatings();
};

struct fedmf_messages {
  std::vector<std::string> serialized;
};

namespace fedmf::capi {

// Records `message` as the thread's last error and returns `code`.
fedmf_status Fail(fedmf_status code, absl::string_view message);
// FEDMF_OK for an OK status, else the matching code with the status message recorded.
fedmf_status FromStatus(const absl::Status& status);

// Runs an entry point's body; an escaping C++ exception (e.g. std::bad_alloc) becomes
// FEDMF_ERR_INTERNAL instead of crossing the C boundary.
template <typename F>
fedmf_status Guard(F&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    return Fail(FEDMF_ERR_INTERNAL, e.what());
  } catch (...) {
    return Fail(FEDMF_ERR_INTERNAL, "unknown C++ exception");
  }
}

// A rating the library takes: finite, magnitude at most FEDMF_MAX_ABS_RATING.
bool IsAcceptableRating(float rating);

// Parses an app-supplied blob (NULL with length 0 is empty) into `message`: InvalidArgument
// naming the type if it does not parse, or the field if a string field is not UTF-8, which is
// checked first so that libprotobuf's parser never logs to the app's stderr (utf8_fields.h).
absl::Status ParseBlob(const uint8_t* data, size_t len, google::protobuf::Message& message);

// Copies `bytes` into a new malloc'ed buffer for the app (freed with fedmf_free).
fedmf_status ReturnBytes(const std::string& bytes, uint8_t** out, size_t* out_len);

// A new handle for `config` (validated) signing with `signing_key`.
fedmf_status NewParticipant(const v1::ParticipantConfig& config,
                            crypto::Ed25519PrivateKey signing_key, fedmf_participant** out);

}  // namespace fedmf::capi

#endif  // FEDMF_CLIENT_CAPI_CAPI_INTERNAL_H_
