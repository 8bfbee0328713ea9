#include "common/dp/participant_budget.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/dp/privacy_cost.h"

namespace fedmf::dp {

absl::StatusOr<ParticipantBudget> ParticipantBudget::Create(PrivacyBudget budget,
                                                            std::vector<double> orders) {
  absl::StatusOr<PrivacyLedger> ledger = PrivacyLedger::Create(std::move(orders));
  if (!ledger.ok()) return ledger.status();
  return Restore(budget, *std::move(ledger));
}

absl::StatusOr<ParticipantBudget> ParticipantBudget::Restore(PrivacyBudget budget,
                                                             PrivacyLedger ledger) {
  if (absl::Status s = ValidateBudget(budget); !s.ok()) return s;
  if (budget.kind == PrivacyBudget::Kind::kRdp) {
    if (absl::StatusOr<double> at = ledger.spent().rdp().At(budget.order); !at.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("budget order ", budget.order, " is not on the ledger's grid of orders"));
    }
  }
  return ParticipantBudget(budget, std::move(ledger));
}

absl::Status ParticipantBudget::CanContribute(const LedgerEntry& entry) const {
  absl::StatusOr<bool> fits = ledger_.CanAfford(entry, budget_);
  if (!fits.ok()) return fits.status();
  if (*fits) return absl::OkStatus();
  absl::StatusOr<double> spent = SpentEpsilon(ledger_.spent(), budget_);
  if (!spent.ok()) return spent.status();
  return absl::ResourceExhaustedError(absl::StrFormat(
      "participant privacy budget exhausted: contributing to round %d (mechanism '%s') would "
      "exceed the budget of %s, of which %g is spent",
      entry.round, entry.mechanism, FormatBudget(budget_), *spent));
}

absl::Status ParticipantBudget::Charge(LedgerEntry entry) {
  if (absl::Status s = CanContribute(entry); !s.ok()) return s;
  return ledger_.Append(std::move(entry));
}

absl::StatusOr<LedgerEntry> ParticipantCost(const LedgerEntry& worst_case, double privacy_weight) {
  if (!worst_case.heterogeneous) {
    return absl::InvalidArgumentError(
        absl::StrCat("ledger entry '", worst_case.mechanism, "' of round ", worst_case.round,
                     " is not heterogeneous: every participant's cost is the recorded one"));
  }
  if (!worst_case.pure_epsilon) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ledger entry '", worst_case.mechanism, "' of round ", worst_case.round,
        " has no pure epsilon: how a privacy weight scales an RDP curve depends on the mechanism, "
        "so build the participant's own entry"));
  }
  if (!(privacy_weight > 0 && privacy_weight <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("privacy weight must be in (0, 1], got ", privacy_weight));
  }
  LedgerEntry own = worst_case;
  own.pure_epsilon = *worst_case.pure_epsilon * privacy_weight;
  own.heterogeneous = false;
  return own;
}

}  // namespace fedmf::dp
