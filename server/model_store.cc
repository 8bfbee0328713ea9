#include "server/model_store.h"

#include <array>
#include <filesystem>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "common/util/atomic_file.h"
#include "common/util/event_log.h"
#include "crypto/secagg/derivation.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

namespace fedmf::server {
namespace {

constexpr absl::string_view kPrefix = "model-";
constexpr absl::string_view kSuffix = ".pb";

std::string Serialize(const google::protobuf::MessageLite& message) {
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  message.SerializeToCodedStream(&coded);
  coded.Trim();
  return bytes;
}

// The SHA-256 of `bytes` as the 32 bytes ModelVersion.sha256 holds.
absl::StatusOr<std::string> ContentHash(absl::string_view bytes) {
  absl::StatusOr<std::array<uint8_t, 32>> digest = secagg::Sha256Of(bytes);
  if (!digest.ok()) return digest.status();
  return std::string(reinterpret_cast<const char*>(digest->data()), digest->size());
}

// The version a file name states, or nullopt for a file that is not a stored model (e.g. the
// temporary file of a write that a crash interrupted).
std::optional<int64_t> VersionOfName(absl::string_view name) {
  if (!absl::ConsumePrefix(&name, kPrefix) || !absl::ConsumeSuffix(&name, kSuffix)) {
    return std::nullopt;
  }
  int64_t version = 0;
  if (!absl::SimpleAtoi(name, &version) || version < 1) return std::nullopt;
  return version;
}

// `stored` as a published version, once its model matches its recorded size and hash; errors
// start with `where`.
absl::StatusOr<std::shared_ptr<const ModelStore::Published>> Verified(v1::StoredModel stored,
                                                                      absl::string_view where) {
  absl::StatusOr<std::string> sha = ContentHash(stored.model());
  if (!sha.ok()) return sha.status();
  if (stored.model().size() != stored.version().size_bytes() || *sha != stored.version().sha256()) {
    return absl::DataLossError(absl::StrCat(where, ": the model does not match its hash or size (",
                                            stored.model().size(), " bytes, ",
                                            stored.version().size_bytes(), " recorded)"));
  }
  auto published = std::make_shared<ModelStore::Published>();
  published->version = std::move(*stored.mutable_version());
  published->model = std::move(*stored.mutable_model());
  return published;
}

absl::StatusOr<std::shared_ptr<const ModelStore::Published>> LoadFile(const std::string& path,
                                                                      int64_t version) {
  absl::StatusOr<std::string> bytes = ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  v1::StoredModel stored;
  if (!stored.ParseFromString(*bytes)) {
    return absl::DataLossError(absl::StrCat(path, ": not a stored model (does not parse)"));
  }
  if (stored.version().version() != version) {
    return absl::DataLossError(absl::StrCat(path, ": holds version ", stored.version().version(),
                                            ", its name says ", version));
  }
  absl::StatusOr<std::shared_ptr<const ModelStore::Published>> verified =
      Verified(std::move(stored), path);
  if (absl::IsDataLoss(verified.status())) {
    return absl::DataLossError(
        absl::StrCat(verified.status().message(), ": the file is corrupted"));
  }
  return verified;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ModelStore>> ModelStore::Open(Options options) {
  if (options.keep < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("the model store must keep at least 1 version, got ", options.keep));
  }
  std::unique_ptr<ModelStore> store(new ModelStore(std::move(options)));
  const std::string& dir = store->options_.dir;
  if (dir.empty()) return store;
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create the model store ", dir, ": ", error.message()));
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    const std::optional<int64_t> version = VersionOfName(entry.path().filename().string());
    if (!version) continue;
    absl::StatusOr<std::shared_ptr<const Published>> loaded =
        LoadFile(entry.path().string(), *version);
    if (!loaded.ok()) return loaded.status();
    store->versions_[*version] = *std::move(loaded);
  }
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot list the model store ", dir, ": ", error.message()));
  }
  // A crash between a publication and its deletions leaves more files than the rule keeps.
  for (int64_t dropped : store->ApplyRetention()) {
    std::filesystem::remove(store->PathOf(dropped), error);
  }
  return store;
}

absl::StatusOr<v1::ModelVersion> ModelStore::Publish(v1::ModelVersion info,
                                                     const v1::RoundPlan& model) {
  std::lock_guard<std::mutex> publishing(publish_mu_);
  auto published = std::make_shared<Published>();
  published->model = Serialize(model);
  absl::StatusOr<std::string> sha = ContentHash(published->model);
  if (!sha.ok()) return sha.status();
  const std::shared_ptr<const Published> latest = Latest();
  if (latest != nullptr && latest->version.sha256() == *sha &&
      latest->version.run_id() == info.run_id() && latest->version.round() == info.round() &&
      latest->version.final() == info.final()) {
    return latest->version;
  }
  info.set_version(latest == nullptr ? 1 : latest->version.version() + 1);
  info.set_sha256(*sha);
  info.set_size_bytes(published->model.size());
  info.set_published_unix_s(absl::ToUnixSeconds(absl::Now()));
  published->version = info;
  if (!options_.dir.empty()) {
    v1::StoredModel stored;
    *stored.mutable_version() = info;
    stored.set_model(published->model);
    if (absl::Status s = WriteFileAtomically(PathOf(info.version()), Serialize(stored)); !s.ok()) {
      return s;
    }
  }
  std::vector<int64_t> dropped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    versions_[info.version()] = std::move(published);
    dropped = ApplyRetention();
  }
  for (int64_t version : dropped) {
    std::error_code error;
    if (!options_.dir.empty()) std::filesystem::remove(PathOf(version), error);
  }
  EventLine("model_published")
      .Add("version", info.version())
      .Add("run_id", info.run_id())
      .Add("round", info.round())
      .Add("final", info.final() ? "yes" : "no")
      .Add("bytes", info.size_bytes())
      .Add("dropped_versions", dropped.size());
  if (listener_) listener_(Find(info.version()));
  return info;
}

absl::Status ModelStore::Keep(v1::StoredModel stored) {
  const int64_t version = stored.version().version();
  absl::StatusOr<std::shared_ptr<const Published>> published =
      Verified(std::move(stored), absl::StrCat("model version ", version));
  if (!published.ok()) return published.status();
  std::lock_guard<std::mutex> lock(mu_);
  versions_.emplace(version, *std::move(published));
  ApplyRetention();
  return absl::OkStatus();
}

void ModelStore::SetPublishListener(PublishListener listener) {
  std::lock_guard<std::mutex> publishing(publish_mu_);
  listener_ = std::move(listener);
}

std::vector<int64_t> ModelStore::ApplyRetention() {
  std::vector<int64_t> dropped;
  int64_t newest_final = 0;
  for (const auto& [version, published] : versions_) {
    if (published->version.final()) newest_final = version;
  }
  int kept_newest = 0;
  for (auto it = versions_.rbegin(); it != versions_.rend(); ++it) {
    if (kept_newest < options_.keep) {
      ++kept_newest;
    } else if (it->first != newest_final) {
      dropped.push_back(it->first);
    }
  }
  for (int64_t version : dropped) versions_.erase(version);
  return dropped;
}

std::shared_ptr<const ModelStore::Published> ModelStore::Latest() const {
  std::lock_guard<std::mutex> lock(mu_);
  return versions_.empty() ? nullptr : versions_.rbegin()->second;
}

std::shared_ptr<const ModelStore::Published> ModelStore::LatestFinal() const {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = versions_.rbegin(); it != versions_.rend(); ++it) {
    if (it->second->version.final()) return it->second;
  }
  return nullptr;
}

std::vector<int64_t> ModelStore::Versions() const {
  std::vector<int64_t> kept;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [version, published] : versions_) kept.push_back(version);
  return kept;
}

std::shared_ptr<const ModelStore::Published> ModelStore::Find(int64_t version) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = versions_.find(version);
  return it == versions_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<const ModelStore::Published>> ModelStore::Kept() const {
  std::vector<std::shared_ptr<const Published>> kept;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [version, published] : versions_) kept.push_back(published);
  return kept;
}

absl::StatusOr<std::shared_ptr<const ModelStore::Published>> ModelStore::ForDownload(
    int64_t version) const {
  if (std::shared_ptr<const Published> model = Find(version)) return model;
  const std::shared_ptr<const Published> latest = Latest();
  return absl::NotFoundError(absl::StrCat(
      "model version ", version, " is not kept (newest: ",
      latest == nullptr ? std::string("none published") : absl::StrCat(latest->version.version()),
      "); ask Register for the latest"));
}

v1::PublishedModels ModelStore::Report() const {
  v1::PublishedModels report;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [version, published] : versions_) {
    report.set_versions(report.versions() + 1);
    report.set_bytes(report.bytes() + static_cast<int64_t>(published->model.size()));
  }
  if (!versions_.empty()) *report.mutable_latest() = versions_.rbegin()->second->version;
  report.set_downloads(downloads_.load(std::memory_order_relaxed));
  return report;
}

std::string ModelStore::PathOf(int64_t version) const {
  return (std::filesystem::path(options_.dir) /
          absl::StrFormat("%s%06d%s", kPrefix, version, kSuffix))
      .string();
}

}  // namespace fedmf::server
