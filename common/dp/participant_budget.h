// ParticipantBudget: one participant's own privacy ledger and budget, kept on its device and free
// of any transport (for HDPMF, the user's own epsilon, known only to the user). Before each
// contribution the runtime asks CanContribute(entry), `entry` being what that contribution costs
// this participant, and refuses to contribute on a non-OK status; Charge(entry) records it. Charge
// and persist (ledger_text_format.h) before sending: a contribution sent but not yet charged
// would be forgotten by a crash, and the participant would under-count what it spent.
#ifndef FEDMF_COMMON_DP_PARTICIPANT_BUDGET_H_
#define FEDMF_COMMON_DP_PARTICIPANT_BUDGET_H_

#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/dp/dp_conversion.h"
#include "common/dp/privacy_ledger.h"
#include "common/dp/rdp_curve.h"

namespace fedmf::dp {

class ParticipantBudget {
 public:
  // An empty ledger on `orders` under `budget` (a kRdp budget's order must be on the grid).
  static absl::StatusOr<ParticipantBudget> Create(PrivacyBudget budget,
                                                  std::vector<double> orders = DefaultOrders());
  // Resumes with `ledger` as spent so far, even if it is already over `budget` (then nothing more
  // is allowed).
  static absl::StatusOr<ParticipantBudget> Restore(PrivacyBudget budget, PrivacyLedger ledger);

  // OK iff charging `entry` keeps the spending within the budget. ResourceExhausted naming the
  // entry, what it would spend and the budget when it does not; FailedPrecondition when the entry
  // protects a smaller unit than the budget; InvalidArgument for a malformed entry.
  absl::Status CanContribute(const LedgerEntry& entry) const;
  // CanContribute, then records `entry`. On error nothing is recorded.
  absl::Status Charge(LedgerEntry entry);

  const PrivacyBudget& budget() const { return budget_; }
  const PrivacyLedger& ledger() const { return ledger_; }

 private:
  ParticipantBudget(PrivacyBudget budget, PrivacyLedger ledger)
      : budget_(budget), ledger_(std::move(ledger)) {}

  PrivacyBudget budget_;
  PrivacyLedger ledger_;
};

// A participant's own cost in a heterogeneous pure-DP release (HDPMF, Definition 2: a record with
// privacy weight v in (0, 1] is protected at epsilon v, epsilon being the release's largest):
// `worst_case` with its pure epsilon times `privacy_weight`, no longer heterogeneous.
// InvalidArgument for an entry that is not heterogeneous, has no pure epsilon (scaling an RDP
// curve by a weight depends on the mechanism: build the participant's own entry instead) or a
// weight outside (0, 1].
absl::StatusOr<LedgerEntry> ParticipantCost(const LedgerEntry& worst_case, double privacy_weight);

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_PARTICIPANT_BUDGET_H_
