// PrivacyLedger: the append-only record of every privacy-relevant release of a training run (one
// entry per mechanism run, in round order) and the accountant over it: what has been spent so far
// and whether another release still fits a budget. Each entry says which unit it protects (one
// user or one rating) and costs either an RDP curve or a pure epsilon; a heterogeneous entry
// records the largest cost any participant may incur, each participant's own cost being known
// only to it (participant_budget.h). Text form: ledger_text_format.h.
#ifndef FEDMF_COMMON_DP_PRIVACY_LEDGER_H_
#define FEDMF_COMMON_DP_PRIVACY_LEDGER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/dp/dp_conversion.h"
#include "common/dp/privacy_accountant.h"
#include "common/dp/privacy_cost.h"
#include "common/dp/privacy_unit.h"
#include "common/dp/rdp_curve.h"

namespace fedmf::dp {

struct LedgerEntry {
  int64_t round = 0;      // >= 0, non-decreasing along the ledger (several entries may share one)
  std::string mechanism;  // [a-z0-9_.-]+, e.g. "pbm", "secagg-gaussian", "laplace"
  std::vector<std::pair<std::string, double>> params;  // names [a-z0-9_]+, finite values
  int64_t participants = 0;  // clients whose contribution is in the release
  int64_t n_min = 0;         // fewest honest clients the guarantee assumed; <= participants
  // What the guarantee protects. Defaults to the weaker claim, so an entry that does not say is
  // never over-claimed (and does not fit a per-user budget).
  PrivacyUnit unit = PrivacyUnit::kRating;
  // The guarantee, exactly one of: the release's RDP on the ledger's orders, or the epsilon of a
  // pure epsilon-DP release (local randomizers, Laplace), then `rdp` is empty.
  std::vector<double> rdp;
  std::optional<double> pure_epsilon;
  // The release's cost differs per participant (heterogeneous DP, e.g. HDPMF's privacy weights);
  // the guarantee above is the largest any participant may incur.
  bool heterogeneous = false;

  friend bool operator==(const LedgerEntry&, const LedgerEntry&) = default;
};

// OK iff the entry is well formed on its own (names, counts, finite params, exactly one of a
// non-empty rdp and a pure epsilon, RDP values and pure epsilon >= 0 or +inf).
absl::Status ValidateEntry(const LedgerEntry& entry);

class PrivacyLedger {
 public:
  static absl::StatusOr<PrivacyLedger> Create(std::vector<double> orders = DefaultOrders());

  // Appends a complete entry (an rdp entry must have one value per order of the ledger).
  absl::Status Append(LedgerEntry entry);
  // Appends `entry` with its rdp taken from `curve`, which must be on the ledger's grid.
  absl::Status Record(LedgerEntry entry, const RdpCurve& curve);

  const std::vector<double>& orders() const { return accountant_.spent().rdp().orders(); }
  absl::Span<const LedgerEntry> entries() const { return entries_; }

  // The cost of a valid `entry` on this ledger's grid: its RDP curve, or for a pure entry
  // PrivacyCost::FromPureDp.
  absl::StatusOr<PrivacyCost> Cost(const LedgerEntry& entry) const;

  // Spent so far: the composed cost (the worst-case unit's), and its report.
  const PrivacyCost& spent() const { return accountant_.spent(); }
  absl::StatusOr<PrivacyReport> Report(double delta) const { return accountant_.Report(delta); }

  // Whether `rounds` more releases like `next` keep the total within `budget`.
  absl::StatusOr<bool> CanAfford(const LedgerEntry& next, const PrivacyBudget& budget,
                                 int64_t rounds = 1) const;
  // How many more such releases fit (at most max_rounds).
  absl::StatusOr<int64_t> AffordableRounds(const LedgerEntry& next, const PrivacyBudget& budget,
                                           int64_t max_rounds) const;

 private:
  explicit PrivacyLedger(PrivacyAccountant accountant) : accountant_(std::move(accountant)) {}

  PrivacyAccountant accountant_;
  std::vector<LedgerEntry> entries_;
};

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_PRIVACY_LEDGER_H_
