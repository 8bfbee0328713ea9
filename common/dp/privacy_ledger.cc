#include "common/dp/privacy_ledger.h"

#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace fedmf::dp {
namespace {

bool IsNameChar(char c, bool allow_punct) {
  return absl::ascii_islower(c) || absl::ascii_isdigit(c) || c == '_' ||
         (allow_punct && (c == '-' || c == '.'));
}

bool IsName(const std::string& s, bool allow_punct) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsNameChar(c, allow_punct)) return false;
  }
  return true;
}

}  // namespace

absl::Status ValidateEntry(const LedgerEntry& entry) {
  if (entry.round < 0) {
    return absl::InvalidArgumentError(absl::StrCat("ledger round must be >= 0, got ", entry.round));
  }
  if (!IsName(entry.mechanism, /*allow_punct=*/true)) {
    return absl::InvalidArgumentError(
        absl::StrCat("ledger mechanism name must match [a-z0-9_.-]+, got '", entry.mechanism, "'"));
  }
  for (const auto& [name, value] : entry.params) {
    if (!IsName(name, /*allow_punct=*/false)) {
      return absl::InvalidArgumentError(
          absl::StrCat("ledger parameter name must match [a-z0-9_]+, got '", name, "'"));
    }
    if (!std::isfinite(value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("ledger parameter '", name, "' must be finite, got ", value));
    }
  }
  if (entry.n_min < 0 || entry.participants < entry.n_min) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ledger entry needs 0 <= n_min <= participants (a release with fewer than n_min honest "
        "clients is not covered by its guarantee); got n_min=",
        entry.n_min, " participants=", entry.participants));
  }
  if (entry.pure_epsilon.has_value() == !entry.rdp.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ledger entry needs exactly one of an RDP curve and a pure epsilon; got ", entry.rdp.size(),
        " RDP values and ", entry.pure_epsilon.has_value() ? "a" : "no", " pure epsilon"));
  }
  if (entry.pure_epsilon && !(*entry.pure_epsilon >= 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("ledger pure epsilon must be >= 0 or inf, got ", *entry.pure_epsilon));
  }
  for (size_t i = 0; i < entry.rdp.size(); ++i) {
    if (std::isnan(entry.rdp[i]) || entry.rdp[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("ledger RDP value #", i, " must be >= 0 or inf, got ", entry.rdp[i]));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<PrivacyLedger> PrivacyLedger::Create(std::vector<double> orders) {
  absl::StatusOr<PrivacyAccountant> accountant = PrivacyAccountant::Create(std::move(orders));
  if (!accountant.ok()) return accountant.status();
  return PrivacyLedger(*std::move(accountant));
}

absl::StatusOr<PrivacyCost> PrivacyLedger::Cost(const LedgerEntry& entry) const {
  if (absl::Status s = ValidateEntry(entry); !s.ok()) return s;
  if (entry.pure_epsilon) {
    return PrivacyCost::FromPureDp(*entry.pure_epsilon, orders(), entry.unit, entry.heterogeneous);
  }
  absl::StatusOr<RdpCurve> curve = RdpCurve::Create(orders(), entry.rdp);
  if (!curve.ok()) return curve.status();
  return PrivacyCost::FromRdp(*std::move(curve), entry.unit, entry.heterogeneous);
}

absl::Status PrivacyLedger::Append(LedgerEntry entry) {
  absl::StatusOr<PrivacyCost> cost = Cost(entry);
  if (!cost.ok()) return cost.status();
  if (!entries_.empty() && entry.round < entries_.back().round) {
    return absl::InvalidArgumentError(absl::StrCat("ledger is append-only: round ", entry.round,
                                                   " after round ", entries_.back().round));
  }
  if (absl::Status s = accountant_.Compose(*cost); !s.ok()) return s;
  entries_.push_back(std::move(entry));
  return absl::OkStatus();
}

absl::Status PrivacyLedger::Record(LedgerEntry entry, const RdpCurve& curve) {
  if (curve.orders() != orders()) {
    return absl::InvalidArgumentError("RDP curve is not on the ledger's grid of orders");
  }
  entry.rdp = curve.values();
  return Append(std::move(entry));
}

absl::StatusOr<bool> PrivacyLedger::CanAfford(const LedgerEntry& next, const PrivacyBudget& budget,
                                              int64_t rounds) const {
  absl::StatusOr<PrivacyCost> cost = Cost(next);
  if (!cost.ok()) return cost.status();
  return accountant_.CanAfford(*cost, budget, rounds);
}

absl::StatusOr<int64_t> PrivacyLedger::AffordableRounds(const LedgerEntry& next,
                                                        const PrivacyBudget& budget,
                                                        int64_t max_rounds) const {
  absl::StatusOr<PrivacyCost> cost = Cost(next);
  if (!cost.ok()) return cost.status();
  return accountant_.AffordableCount(*cost, budget, max_rounds);
}

}  // namespace fedmf::dp
