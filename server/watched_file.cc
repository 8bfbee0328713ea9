#include "server/watched_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "common/util/event_log.h"

namespace fedmf::server {

absl::StatusOr<FileVersion> StatFileVersion(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    const int error = errno;
    const std::string message = absl::StrCat(path, ": ", std::strerror(error));
    return error == ENOENT ? absl::NotFoundError(message) : absl::PermissionDeniedError(message);
  }
  return FileVersion{st.st_mtim, st.st_size, st.st_ino};
}

absl::StatusOr<std::pair<std::string, FileVersion>> ReadVersionedFile(const std::string& path,
                                                                      absl::string_view what) {
  absl::StatusOr<FileVersion> version = StatFileVersion(path);
  if (!version.ok()) {
    return absl::Status(version.status().code(),
                        absl::StrCat(what, " ", version.status().message()));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::PermissionDeniedError(absl::StrCat(what, " ", path, ": cannot open"));
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat(what, " ", path, ": read error"));
  return std::make_pair(content.str(), *version);
}

void WarnStaleFile(absl::string_view what, const absl::Status& status) {
  EventLine("warning")
      .Add("file", what)
      .Add("status", status.ToString())
      .Add("effect", "the previous version stays in force");
}

}  // namespace fedmf::server
