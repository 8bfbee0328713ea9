// EventLine: one machine-parsable log line per event, "ts=<UTC> event=<name> key=value ...",
// written to stderr when the object is destroyed. Values containing spaces or quotes are quoted.
#ifndef FEDMF_COMMON_UTIL_EVENT_LOG_H_
#define FEDMF_COMMON_UTIL_EVENT_LOG_H_

#include <cstdint>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace fedmf {

// How EventLine writes a double: 6 significant digits.
std::string EventValue(double value);

class EventLine {
 public:
  explicit EventLine(absl::string_view event);
  ~EventLine();
  EventLine(const EventLine&) = delete;
  EventLine& operator=(const EventLine&) = delete;

  EventLine& Add(absl::string_view key, absl::string_view value);
  EventLine& Add(absl::string_view key, const char* value) {
    return Add(key, absl::string_view(value));
  }
  EventLine& Add(absl::string_view key, const std::string& value) {
    return Add(key, absl::string_view(value));
  }
  EventLine& Add(absl::string_view key, double value);  // 6 significant digits
  template <typename Int, typename = std::enable_if_t<std::is_integral_v<Int>>>
  EventLine& Add(absl::string_view key, Int value) {
    absl::StrAppend(&line_, " ", key, "=", value);
    return *this;
  }

 private:
  std::string line_;
};

}  // namespace fedmf

#endif  // FEDMF_COMMON_UTIL_EVENT_LOG_H_
