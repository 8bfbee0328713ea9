// Line-based text forms of a PrivacyLedger (the coordinator's checkpoint) and of a
// ParticipantBudget (a participant's device), also meant for people:
//   fedmf-privacy-ledger v2
//   orders <o_1> ... <o_k>
//   entry round=<r> mechanism=<name> unit=<user|rating> participants=<n> n_min=<m>
//         params=<a>:<x>;<b>:<y> heterogeneous=<yes|no> rdp=<v_1>,...,<v_k>
//   entry ... epsilon=<e>            (a pure epsilon-DP entry has epsilon= instead of rdp=)
//   end entries=<count> fnv1a64=<16 hex digits of FNV-1a over every byte before this line>
// (each entry on one line). A participant's budget starts with its own header and budget line,
// which the checksum covers too, then the same lines from "orders" on:
//   fedmf-participant-budget v1
//   budget kind=<rdp|approx_dp|pure> unit=<user|rating> epsilon=<e> [order=<a>|delta=<d>]
// Version 1 of the ledger still loads: its entries have no unit, heterogeneous or epsilon field
// and protect one user (every v1 entry is a DPMF-RP round). Ledgers are always written as v2.
// Numbers are printed with 17 significant digits so a round trip is exact. The trailer makes a
// truncated or altered file fail to load (a ledger that silently lost entries would under-report
// the privacy spent). Parse errors name the line and the field; they never crash.
#ifndef FEDMF_COMMON_DP_LEDGER_TEXT_FORMAT_H_
#define FEDMF_COMMON_DP_LEDGER_TEXT_FORMAT_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/dp/participant_budget.h"
#include "common/dp/privacy_ledger.h"

namespace fedmf::dp {

std::string SerializeLedger(const PrivacyLedger& ledger);
absl::StatusOr<PrivacyLedger> ParseLedger(absl::string_view text);

std::string SerializeParticipantBudget(const ParticipantBudget& participant);
absl::StatusOr<ParticipantBudget> ParseParticipantBudget(absl::string_view text);

// 64-bit FNV-1a hash of `bytes` (the trailer's integrity check; not a cryptographic MAC).
uint64_t Fnv1a64(absl::string_view bytes);

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_LEDGER_TEXT_FORMAT_H_
