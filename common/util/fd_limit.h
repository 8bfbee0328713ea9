// The open-file limit of the process (RLIMIT_NOFILE): a coordinator or load client holding
// thousands of connections raises its soft limit to the hard one and fails with a clear message
// when even that is too low, instead of failing later on an accept or connect.
#ifndef FEDMF_COMMON_UTIL_FD_LIMIT_H_
#define FEDMF_COMMON_UTIL_FD_LIMIT_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fedmf {

// Raises the soft limit to the hard limit (no-op if already there) and returns the soft limit in
// force afterwards. Internal if getrlimit/setrlimit fail.
absl::StatusOr<uint64_t> RaiseOpenFileLimit();

// RaiseOpenFileLimit, then FailedPrecondition naming `what`, `needed` and the limits when fewer
// than `needed` descriptors are allowed (the message says how to raise the hard limit).
absl::Status RequireOpenFiles(uint64_t needed, absl::string_view what);

}  // namespace fedmf

#endif  // FEDMF_COMMON_UTIL_FD_LIMIT_H_
