// C API: published models, for a device that missed the end of training
// (client/include/fedmf/fedmf_client.h, "Published models").
#include <climits>

#include "absl/strings/str_cat.h"
#include "client/capi/capi_internal.h"
#include "client/participant_host.h"
#include "fedmf/v1/federation.pb.h"
#include "wire/chunking.h"
#include "wire/limits.h"

using fedmf::capi::Fail;
using fedmf::capi::FromStatus;
using fedmf::capi::Guard;

extern "C" {

int64_t fedmf_participant_latest_model_version(const fedmf_participant* participant) {
  return participant == nullptr ? 0 : participant->latest_published.version();
}

int64_t fedmf_participant_model_version(const fedmf_participant* participant) {
  if (participant == nullptr || participant->host->contributor() == nullptr) return 0;
  return participant->host->published_model().version();
}

fedmf_status fedmf_participant_download_request(fedmf_participant* participant, uint8_t** out,
                                                size_t* out_len) {
  return Guard([&] {
    if (participant == nullptr || out == nullptr || out_len == nullptr) {
      return Fail(FEDMF_ERR_INVALID_ARGUMENT, "participant, out or out_len is NULL");
    }
    const fedmf::v1::ModelVersion& latest = participant->latest_published;
    if (latest.version() == 0) {
      return Fail(FEDMF_ERR_FAILED_PRECONDITION,
                  "the coordinator named no published model in its last RegisterResponse");
    }
    if (fedmf_participant_model_version(participant) == latest.version()) {
      return Fail(FEDMF_ERR_FAILED_PRECONDITION,
                  absl::StrCat("the participant holds published model version ",
                               latest.version(), " already"));
    }
    if (!participant->download.has_value() ||
        participant->download->version().version() != latest.version()) {
      const uint64_t max_bytes = participant->config.max_download_bytes() != 0
                                     ? participant->config.max_download_bytes()
                                     : fedmf::wire::kMaxTransferBytes;
      absl::StatusOr<fedmf::client::ModelDownload> started =
          fedmf::client::ModelDownload::Start(latest, max_bytes);
      if (!started.ok()) return FromStatus(started.status());
      participant->download = *std::move(started);
    }
    return fedmf::capi::ReturnBytes(participant->download->NextRequest().SerializeAsString(), out,
                                    out_len);
  });
}

fedmf_status fedmf_participant_handle_model_chunk(fedmf_participant* participant,
                                                  const uint8_t* chunk, size_t chunk_len,
                                                  int* complete) {
  return Guard([&] {
    if (participant == nullptr || complete == nullptr || (chunk == nullptr && chunk_len != 0)) {
      return Fail(FEDMF_ERR_INVALID_ARGUMENT, "participant, chunk or complete is NULL");
    }
    *complete = 0;
    if (!participant->download.has_value()) {
      return Fail(FEDMF_ERR_FAILED_PRECONDITION,
                  "no model download in progress (fedmf_participant_download_request)");
    }
    // A chunk carries at most kModelChunkBytes of model and a version: refuse anything far larger
    // before parsing.
    if (chunk_len > fedmf::wire::kModelChunkBytes + 4096) {
      return Fail(FEDMF_ERR_INVALID_ARGUMENT,
                  absl::StrCat("a model chunk of ", chunk_len, " bytes: at most ",
                               fedmf::wire::kModelChunkBytes, " of model each"));
    }
    fedmf::v1::ModelChunk parsed;
    if (absl::Status s = fedmf::capi::ParseBlob(chunk, chunk_len, parsed); !s.ok()) {
      return FromStatus(s);
    }
    fedmf::client::ModelDownload& download = *participant->download;
    if (absl::Status s = download.Add(parsed); !s.ok()) return FromStatus(s);
    if (!download.complete()) return FEDMF_OK;
    absl::StatusOr<fedmf::v1::RoundPlan> model = download.Finish();
    const fedmf::v1::ModelVersion version = download.version();
    participant->download.reset();
    if (!model.ok()) return FromStatus(model.status());
    if (absl::Status s = participant->host->AdoptPublishedModel(*model, version); !s.ok()) {
      return FromStatus(s);
    }
    *complete = 1;
    return FEDMF_OK;
  });
}

}  // extern "C"
