// kInvalidArgument with a printf-style message whose format is checked at compile time: the reason
// a SecAgg party gives when it rejects a message or aborts.
#ifndef FEDMF_CRYPTO_SECAGG_ERRORS_H_
#define FEDMF_CRYPTO_SECAGG_ERRORS_H_

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace fedmf::secagg {

template <typename... Args>
absl::Status Invalid(const absl::FormatSpec<Args...>& format, const Args&... args) {
  return absl::InvalidArgumentError(absl::StrFormat(format, args...));
}

}  // namespace fedmf::secagg

#endif  // FEDMF_CRYPTO_SECAGG_ERRORS_H_
