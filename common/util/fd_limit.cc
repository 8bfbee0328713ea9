#include "common/util/fd_limit.h"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace fedmf {

absl::StatusOr<uint64_t> RaiseOpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    return absl::InternalError(absl::StrCat("getrlimit(RLIMIT_NOFILE): ", std::strerror(errno)));
  }
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) != 0) {
      return absl::InternalError(
          absl::StrCat("setrlimit(RLIMIT_NOFILE, ", limit.rlim_max, "): ", std::strerror(errno)));
    }
    limit = raised;
  }
  return static_cast<uint64_t>(limit.rlim_cur);
}

absl::Status RequireOpenFiles(uint64_t needed, absl::string_view what) {
  absl::StatusOr<uint64_t> soft = RaiseOpenFileLimit();
  if (!soft.ok()) return soft.status();
  if (*soft < needed) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, " needs about ", needed, " open files but the hard limit (RLIMIT_NOFILE) is ", *soft,
        "; raise it (ulimit -Hn as root, or LimitNOFILE= / docker --ulimit nofile=)"));
  }
  return absl::OkStatus();
}

}  // namespace fedmf
