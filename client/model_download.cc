#include "client/model_download.h"

#include <array>
#include <utility>

#include "absl/strings/str_cat.h"
#include "crypto/secagg/derivation.h"
#include "wire/limits.h"
#include "wire/utf8_fields.h"

namespace fedmf::client {

absl::StatusOr<ModelDownload> ModelDownload::Start(const v1::ModelVersion& version,
                                                   uint64_t max_bytes) {
  if (version.version() < 1 || version.sha256().size() != 32) {
    return absl::InvalidArgumentError(absl::StrCat(
        "published model version ", version.version(), " with a ", version.sha256().size(),
        "-byte hash: need a version >= 1 and a 32-byte SHA-256"));
  }
  if (version.size_bytes() == 0 || version.size_bytes() > max_bytes) {
    return absl::InvalidArgumentError(absl::StrCat("published model version ", version.version(),
                                                   " is ", version.size_bytes(),
                                                   " bytes: need 1 to ", max_bytes));
  }
  return ModelDownload(version);
}

v1::DownloadModelRequest ModelDownload::NextRequest() const {
  v1::DownloadModelRequest request;
  request.set_version(version_.version());
  request.set_offset(received_.size());
  return request;
}

absl::Status ModelDownload::Add(const v1::ModelChunk& chunk) {
  if (chunk.has_version() && (chunk.version().version() != version_.version() ||
                              chunk.version().sha256() != version_.sha256())) {
    return absl::InvalidArgumentError(
        absl::StrCat("a chunk of model version ", chunk.version().version(),
                     " in the download of version ", version_.version()));
  }
  if (chunk.offset() != received_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("a model chunk at offset ", chunk.offset(),
                                                   " after ", received_.size(), " bytes"));
  }
  if (chunk.data().empty() || chunk.data().size() > wire::kModelChunkBytes ||
      chunk.data().size() > version_.size_bytes() - received_.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a model chunk of ", chunk.data().size(), " bytes at offset ", chunk.offset(),
        " (model of ", version_.size_bytes(), " bytes, chunks of 1 to ", wire::kModelChunkBytes,
        ")"));
  }
  received_.append(chunk.data());
  return absl::OkStatus();
}

absl::StatusOr<v1::RoundPlan> ModelDownload::Finish() {
  if (!complete()) {
    return absl::FailedPreconditionError(absl::StrCat("the model download has ", received_.size(),
                                                      " of ", version_.size_bytes(), " bytes"));
  }
  std::string bytes = std::move(received_);
  received_.clear();
  absl::StatusOr<std::array<uint8_t, 32>> digest = secagg::Sha256Of(bytes);
  if (!digest.ok()) return digest.status();
  if (version_.sha256() != std::string(reinterpret_cast<const char*>(digest->data()), 32)) {
    return absl::InvalidArgumentError(
        absl::StrCat("model version ", version_.version(),
                     " does not match its SHA-256: discarded, the download starts over"));
  }
  v1::RoundPlan model;
  if (absl::Status s = wire::CheckStringFieldsAreUtf8(*v1::RoundPlan::descriptor(), bytes);
      !s.ok()) {
    return s;
  }
  if (!model.ParseFromString(bytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat("model version ", version_.version(), " is not a RoundPlan"));
  }
  return model;
}

}  // namespace fedmf::client
