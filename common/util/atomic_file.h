// Crash-safe file replacement: the file at `path` holds either its old content or all of `bytes`,
// never a torn mix, even if the process is killed or the machine loses power mid-write.
#ifndef FEDMF_COMMON_UTIL_ATOMIC_FILE_H_
#define FEDMF_COMMON_UTIL_ATOMIC_FILE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fedmf {

// Writes `bytes` to a temporary file in the same directory, fsyncs it, renames it over `path` and
// fsyncs the directory.
absl::Status WriteFileAtomically(const std::string& path, absl::string_view bytes);

// Reads a whole file; NotFound names the path.
absl::StatusOr<std::string> ReadFile(const std::string& path);

}  // namespace fedmf

#endif  // FEDMF_COMMON_UTIL_ATOMIC_FILE_H_
