// One resumable download of a published model (Models.Download, proto/fedmf/v1/federation.proto):
// it names the request that continues it (the bytes received so far are kept, so a broken call
// resumes where it stopped), takes the chunks in order, and yields the model only when its
// SHA-256 and size are the version's. Sans-IO: the caller moves the bytes.
#ifndef FEDMF_CLIENT_MODEL_DOWNLOAD_H_
#define FEDMF_CLIENT_MODEL_DOWNLOAD_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fedmf/v1/algorithm.pb.h"
#include "fedmf/v1/federation.pb.h"

namespace fedmf::client {

class ModelDownload {
 public:
  // InvalidArgument for a version that cannot be downloaded: number < 1, hash not 32 bytes, or
  // a size of 0 or above `max_bytes` (the largest model the device accepts).
  static absl::StatusOr<ModelDownload> Start(const v1::ModelVersion& version, uint64_t max_bytes);

  const v1::ModelVersion& version() const { return version_; }
  // The request for the bytes still missing.
  v1::DownloadModelRequest NextRequest() const;
  // Appends one chunk. InvalidArgument (nothing appended) for a chunk of another version, one that
  // does not start at the bytes received, an empty one, one over wire::kModelChunkBytes or past
  // the model's size: the caller asks again with NextRequest().
  absl::Status Add(const v1::ModelChunk& chunk);
  bool complete() const { return received_.size() == version_.size_bytes(); }
  uint64_t received_bytes() const { return received_.size(); }
  // The model, once complete. InvalidArgument if its hash is not the version's or it does not
  // parse; the bytes are then dropped, so the next request starts over from offset 0.
  absl::StatusOr<v1::RoundPlan> Finish();

 private:
  explicit ModelDownload(v1::ModelVersion version) : version_(std::move(version)) {}

  v1::ModelVersion version_;
  std::string received_;
};

}  // namespace fedmf::client

#endif  // FEDMF_CLIENT_MODEL_DOWNLOAD_H_
