// PrivacyLedger: the append-only record of every privacy-relevant release of a training run (one
// entry per mechanism run, in round order) and the RDP accountant over it: what has been spent so
// far and whether another round of a mechanism still fits a budget. Every entry is a per-user RDP
// release. Text form: ledger_text_format.h.
#ifndef FEDMF_COMMON_DP_PRIVACY_LEDGER_H_
#define FEDMF_COMMON_DP_PRIVACY_LEDGER_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/dp/dp_conversion.h"
#include "common/dp/privacy_accountant.h"
#include "common/dp/privacy_cost.h"
#include "common/dp/rdp_curve.h"

namespace fedmf::dp {

struct LedgerEntry {
  int64_t round = 0;      // >= 0, non-decreasing along the ledger (several entries may share one)
  std::string mechanism;  // [a-z0-9_.-]+, e.g. "pbm", "secagg-gaussian", "laplace"
  std::vector<std::pair<std::string, double>> params;  // names [a-z0-9_]+, finite values
  int64_t participants = 0;  // clients whose contribution is in the release
  int64_t n_min = 0;         // fewest honest clients the guarantee assumed; <= participants
  std::vector<double> rdp;   // the release's RDP on the ledger's orders

  friend bool operator==(const LedgerEntry&, const LedgerEntry&) = default;
};

// OK iff the entry is well formed on its own (names, counts, finite params, RDP values >= 0).
absl::Status ValidateEntry(const LedgerEntry& entry);

class PrivacyLedger {
 public:
  static absl::StatusOr<PrivacyLedger> Create(std::vector<double> orders = DefaultOrders());

  // Appends a complete entry (its rdp must have one value per order of the ledger).
  absl::Status Append(LedgerEntry entry);
  // Appends `entry` with its rdp taken from `curve`, which must be on the ledger's grid.
  absl::Status Record(LedgerEntry entry, const RdpCurve& curve);

  const std::vector<double>& orders() const { return accountant_.spent().rdp().orders(); }
  absl::Span<const LedgerEntry> entries() const { return entries_; }

  // Spent so far: the composed cost, and its report (alpha = 2 total, epsilon at delta).
  const PrivacyCost& spent() const { return accountant_.spent(); }
  absl::StatusOr<PrivacyReport> Report(double delta) const { return accountant_.Report(delta); }

  // Whether `rounds` more releases with guarantee `next` keep the total within `budget`.
  absl::StatusOr<bool> CanAfford(const RdpCurve& next, const PrivacyBudget& budget,
                                 int64_t rounds = 1) const {
    return accountant_.CanAfford(PrivacyCost::FromRdp(next, PrivacyUnit::kUser), budget, rounds);
  }
  // How many more such releases fit (at most max_rounds).
  absl::StatusOr<int64_t> AffordableRounds(const RdpCurve& next, const PrivacyBudget& budget,
                                           int64_t max_rounds) const {
    return accountant_.AffordableCount(PrivacyCost::FromRdp(next, PrivacyUnit::kUser), budget,
                                       max_rounds);
  }

 private:
  explicit PrivacyLedger(PrivacyAccountant accountant) : accountant_(std::move(accountant)) {}

  PrivacyAccountant accountant_;
  std::vector<LedgerEntry> entries_;
};

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_PRIVACY_LEDGER_H_
