#include "common/dp/privacy_unit.h"

#include "absl/strings/str_cat.h"

namespace fedmf::dp {

absl::string_view PrivacyUnitName(PrivacyUnit unit) {
  return unit == PrivacyUnit::kUser ? "user" : "rating";
}

absl::StatusOr<PrivacyUnit> ParsePrivacyUnit(absl::string_view name) {
  if (name == "user") return PrivacyUnit::kUser;
  if (name == "rating") return PrivacyUnit::kRating;
  return absl::InvalidArgumentError(
      absl::StrCat("privacy unit must be 'user' or 'rating', got '", name, "'"));
}

PrivacyUnit ComposedUnit(PrivacyUnit a, PrivacyUnit b) {
  return a == PrivacyUnit::kUser && b == PrivacyUnit::kUser ? PrivacyUnit::kUser
                                                            : PrivacyUnit::kRating;
}

bool Covers(PrivacyUnit guaranteed, PrivacyUnit required) {
  return guaranteed == PrivacyUnit::kUser || required == PrivacyUnit::kRating;
}

}  // namespace fedmf::dp
