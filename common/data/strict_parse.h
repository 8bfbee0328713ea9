// Strict number parsing for data files and specs: the whole text must be the number, with no
// spaces, no '+', no trailing characters ("3x"), and doubles must be finite (no NaN, no infinity).
#ifndef FEDMF_COMMON_DATA_STRICT_PARSE_H_
#define FEDMF_COMMON_DATA_STRICT_PARSE_H_

#include <charconv>
#include <cmath>
#include <system_error>
#include <type_traits>

#include "absl/strings/string_view.h"

namespace fedmf::data {

inline bool ParseFiniteDouble(absl::string_view text, double& out) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && std::isfinite(out);
}

// Decimal integer of type T, failing on overflow.
template <typename T>
bool ParseInteger(absl::string_view text, T& out) {
  static_assert(std::is_integral_v<T>);
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end;
}

}  // namespace fedmf::data

#endif  // FEDMF_COMMON_DATA_STRICT_PARSE_H_
