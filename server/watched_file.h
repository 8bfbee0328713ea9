// A configuration file the coordinator re-reads when it changes, parsed into a T: read at Load,
// then checked at most once per check interval when Get() is called, and re-read if its
// modification time, size or inode changed. A re-read that fails (the file unreadable, or a parse
// error while it is being rewritten) keeps the previous version in force and logs event=warning;
// each version read logs `on_load`'s line. Used for the revocation list and the credentials file,
// which operators edit while the coordinator runs. Thread-safe.
#ifndef FEDMF_SERVER_WATCHED_FILE_H_
#define FEDMF_SERVER_WATCHED_FILE_H_

#include <sys/types.h>

#include <ctime>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace fedmf::server {

// What identifies one version of a file.
struct FileVersion {
  timespec mtime{};
  off_t size = 0;
  ino_t inode = 0;
  bool operator==(const FileVersion& o) const {
    return mtime.tv_sec == o.mtime.tv_sec && mtime.tv_nsec == o.mtime.tv_nsec && size == o.size &&
           inode == o.inode;
  }
};

// The contents and version of `path`; NotFound / PermissionDenied / DataLoss naming `what` and
// the path.
absl::StatusOr<std::pair<std::string, FileVersion>> ReadVersionedFile(const std::string& path,
                                                                      absl::string_view what);
// The version of `path` now, or an error if it cannot be stat'ed.
absl::StatusOr<FileVersion> StatFileVersion(const std::string& path);
// Logs event=warning: `what` could not be re-read (`status`), the previous version stays.
void WarnStaleFile(absl::string_view what, const absl::Status& status);

template <typename T>
class WatchedFile {
 public:
  using Parse = std::function<absl::StatusOr<T>(absl::string_view text)>;
  using OnLoad = std::function<void(const std::string& path, const T& value)>;

  // `what` names the file in errors (e.g. "credentials file"). Errors of the first read or parse.
  static absl::StatusOr<std::unique_ptr<WatchedFile>> Load(std::string path, std::string what,
                                                           Parse parse, OnLoad on_load,
                                                           absl::Duration check_interval) {
    std::unique_ptr<WatchedFile> file(new WatchedFile(
        std::move(path), std::move(what), std::move(parse), std::move(on_load), check_interval));
    std::lock_guard<std::mutex> lock(file->mu_);
    if (absl::Status s = file->Reload(); !s.ok()) return s;
    file->last_check_ = absl::Now();
    return file;
  }

  // The current version (re-read first if it changed and the last check is old enough).
  std::shared_ptr<const T> Get() {
    std::lock_guard<std::mutex> lock(mu_);
    const absl::Time now = absl::Now();
    if (now - last_check_ >= check_interval_) {
      last_check_ = now;
      absl::StatusOr<FileVersion> version = StatFileVersion(path_);
      if (!version.ok() || !(*version == version_)) {
        if (absl::Status s = Reload(); !s.ok()) WarnStaleFile(what_, s);
      }
    }
    return value_;
  }

 private:
  WatchedFile(std::string path, std::string what, Parse parse, OnLoad on_load,
              absl::Duration check_interval)
      : path_(std::move(path)),
        what_(std::move(what)),
        parse_(std::move(parse)),
        on_load_(std::move(on_load)),
        check_interval_(check_interval) {}

  absl::Status Reload() {  // under mu_
    absl::StatusOr<std::pair<std::string, FileVersion>> read = ReadVersionedFile(path_, what_);
    if (!read.ok()) return read.status();
    absl::StatusOr<T> parsed = parse_(read->first);
    if (!parsed.ok()) {
      return absl::Status(parsed.status().code(),
                          absl::StrCat(what_, " ", path_, ": ", parsed.status().message()));
    }
    value_ = std::make_shared<const T>(*std::move(parsed));
    version_ = read->second;
    if (on_load_) on_load_(path_, *value_);
    return absl::OkStatus();
  }

  const std::string path_;
  const std::string what_;
  const Parse parse_;
  const OnLoad on_load_;
  const absl::Duration check_interval_;
  std::mutex mu_;
  std::shared_ptr<const T> value_;
  FileVersion version_;
  absl::Time last_check_ = absl::InfinitePast();
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_WATCHED_FILE_H_
