// The contract probe: a TEST-ONLY algorithm (docs/algorithms.md, "The contract probe") that makes
// the real coordinator and clients use every capability of the algorithm contract, and fails the
// run when one is broken, while computing something checkable: item popularity under local DP.
// Each round has two phases:
//   phase 0 (clear, sparse): every user of every participant (a user or a silo party) reports one
//     of their rated items through k-ary randomized response (pure report_epsilon-LDP per user,
//     charged to the participant's own budget); a participant uploads its reports' counts as a
//     sparse vector, and its state counts its phase-0 contributions.
//   phase 1 (SecAgg, phase 0's contributors only): each uploads its state counter at its own
//     coordinate (participant id - 1 of num_users); each counter must be at least the phase-0
//     contributions the coordinator received from that participant, else it lost its state and
//     the phase fails. (Counters are not private: the coordinator knows whom it asked.)
// The model is the debiased popularity estimate; it scores items without factors and predicts
// no ratings. Run-level accounting: pure epsilon per user, basic composition over rounds.
#ifndef FEDMF_COMMON_ALGORITHMS_PROBE_PROBE_H_
#define FEDMF_COMMON_ALGORITHMS_PROBE_PROBE_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/dp/privacy_ledger.h"
#include "fedmf/v1/probe.pb.h"

namespace fedmf::algorithms::probe {

inline constexpr absl::string_view kAlgorithmName = "probe";
inline constexpr int32_t kReportPhase = 0;
inline constexpr int32_t kCounterPhase = 1;
// Both phases sum in Z_{2^32}: report counts and counters stay far below it.
inline constexpr int kBits = 32;

// InvalidArgument naming the first bad field of a configuration (it may come from the network).
absl::Status ValidateConfig(const v1::ProbeConfig& config);

// What round `round`'s reports of `participants` participants release: pure report_epsilon per
// user, each user reporting once (the coordinator's ledger and each participant's own).
dp::LedgerEntry ReportRelease(const v1::ProbeConfig& config, int64_t round, int64_t participants);

// A participant's state: its phase-0 contribution count, "probe-v1:<count>" ("" is 0).
std::string EncodeCounter(int64_t count);
absl::StatusOr<int64_t> DecodeCounter(absl::string_view state);

}  // namespace fedmf::algorithms::probe

#endif  // FEDMF_COMMON_ALGORITHMS_PROBE_PROBE_H_
