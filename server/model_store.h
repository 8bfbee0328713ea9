// The models the coordinator publishes for devices to download (docs/runtime.md, "Published
// models"): numbered versions, each its metadata (v1::ModelVersion) and its model (a serialized
// RoundPlan), kept in memory and, with a directory, one file each (<dir>/model-<version>.pb,
// written atomically), so a restarted coordinator serves what it published before. Retention:
// the `keep` newest versions, plus the newest final model even when it is older (a device that
// checks in long after a run still gets that run's result); dropped versions' files are deleted.
// A front keeps a copy of the combiner's store (docs/scale-out.md, "The fronts' model cache"):
// the combiner's publish listener sends each new version down the replica links, and each front
// keeps what arrives (Keep) in a store of its own, in memory.
// Thread-safe: Publish (the round driver) hashes and writes files outside the lock that readers
// (Register, Models.Download) take only to copy a pointer.
#ifndef FEDMF_SERVER_MODEL_STORE_H_
#define FEDMF_SERVER_MODEL_STORE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "fedmf/v1/federation.pb.h"

namespace fedmf::server {

class ModelStore {
 public:
  struct Published {
    v1::ModelVersion version;
    std::string model;  // the serialized RoundPlan, version.size_bytes long
  };
  struct Options {
    std::string dir;  // empty: in memory only
    int keep = 3;     // >= 1
  };

  // Loads the versions stored in options.dir (creating it). An error names the first file that
  // does not parse, whose model does not match its hash or size, or whose name is not its
  // version: a corrupted store stops the coordinator at start instead of serving a bad model.
  static absl::StatusOr<std::unique_ptr<ModelStore>> Open(Options options);

  // Publishes `model` as the next version, with `info`'s run, round, algorithm, final flag and
  // privacy (the version number, hash, size and time are filled in here). Publishing the model the
  // newest version already holds, for the same run, round and final flag, returns that version
  // instead (a restarted coordinator re-finishing a finished run publishes nothing new).
  absl::StatusOr<v1::ModelVersion> Publish(v1::ModelVersion info, const v1::RoundPlan& model);
  // Keeps a version another store published (a front's copy of the combiner's) with its number
  // and metadata as they are, under this store's retention. DATA_LOSS when the model does not
  // match its recorded size or hash; a version kept already, or one the retention would drop at
  // once, is left out.
  absl::Status Keep(v1::StoredModel stored);
  // Called with each version Publish adds (not one it returns again), after every reader can
  // find it, outside the store's locks but before Publish returns (one at a time). One listener;
  // an empty function removes it. Set it before publishing starts or while nothing publishes.
  using PublishListener = std::function<void(const std::shared_ptr<const Published>&)>;
  void SetPublishListener(PublishListener listener);

  // The newest version; null when nothing was published.
  std::shared_ptr<const Published> Latest() const;
  // The newest final model (the end of a run); null when no run has ended here.
  std::shared_ptr<const Published> LatestFinal() const;
  // The versions kept, ascending.
  std::vector<int64_t> Versions() const;
  // Version `version`; null when the store does not keep it (never published, or dropped).
  std::shared_ptr<const Published> Find(int64_t version) const;
  // Every version kept, ascending (what a front that attaches is sent).
  std::vector<std::shared_ptr<const Published>> Kept() const;
  // Version `version` for a device's Models.Download: NOT_FOUND, naming the newest version,
  // when the store does not keep it.
  absl::StatusOr<std::shared_ptr<const Published>> ForDownload(int64_t version) const;

  // A download sent a model's last byte.
  void CountDownload() { downloads_.fetch_add(1, std::memory_order_relaxed); }
  // Versions and bytes kept, the newest version and the downloads (Admin.Status).
  v1::PublishedModels Report() const;

 private:
  explicit ModelStore(Options options) : options_(std::move(options)) {}
  std::string PathOf(int64_t version) const;
  // Drops the versions beyond the retention rule; their numbers (to delete the files).
  std::vector<int64_t> ApplyRetention();

  const Options options_;
  mutable std::mutex mu_;
  std::map<int64_t, std::shared_ptr<const Published>> versions_;  // guarded by mu_
  std::mutex publish_mu_;  // one Publish at a time (numbering, files), apart from readers
  PublishListener listener_;  // guarded by publish_mu_
  std::atomic<int64_t> downloads_{0};
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_MODEL_STORE_H_
