// PrivacyUnit: what a differential-privacy guarantee protects, i.e. which two datasets count as
// neighbours: all of one user's data (per user), or one rating of one user (per rating). Datasets
// that differ in one rating differ in one user's data, so a per-user guarantee also holds per
// rating, never the converse: composing per-user and per-rating releases protects one rating.
#ifndef FEDMF_COMMON_DP_PRIVACY_UNIT_H_
#define FEDMF_COMMON_DP_PRIVACY_UNIT_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fedmf::dp {

enum class PrivacyUnit {
  kUser,    // everything one user contributes may change (DPMF-RP, LDP GD per user)
  kRating,  // one rating (item and value) of one user may change (HDPMF, per-rating LDP)
};

// "user" or "rating", as in the ledger's text form and in reports ("epsilon 1 per user").
absl::string_view PrivacyUnitName(PrivacyUnit unit);
// Inverse of PrivacyUnitName; InvalidArgument naming `name` otherwise.
absl::StatusOr<PrivacyUnit> ParsePrivacyUnit(absl::string_view name);

// The unit a composition of guarantees for units `a` and `b` protects: the smaller one.
PrivacyUnit ComposedUnit(PrivacyUnit a, PrivacyUnit b);
// Whether a guarantee for `guaranteed` also bounds the loss of one `required` unit.
bool Covers(PrivacyUnit guaranteed, PrivacyUnit required);

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_PRIVACY_UNIT_H_
