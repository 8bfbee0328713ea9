// A cross-silo FMF party's own state (fedmf.v1.FmfPartyState), kept on its device by the runtime
// and never sent: the embeddings only it holds (VFL: V_Fk; HFL: U_k) before and after the last
// round it computed, and the secret 128-bit key of its noise, drawn once from the runtime's
// generator. The noise of round t comes from a generator keyed by (key, t) only, so a round the
// coordinator abandoned and retries (same broadcast) is recomputed from the same held embeddings
// with the same noise: the retry's upload equals the first one and releases nothing new. A party
// that lost its state cannot rejoin after round 0.
#ifndef FEDMF_COMMON_ALGORITHMS_LIB_FMF_PARTY_PARTY_ROUND_H_
#define FEDMF_COMMON_ALGORITHMS_LIB_FMF_PARTY_PARTY_ROUND_H_

#include <cstdint>
#include <string>

#include "Eigen/Core"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/dp/rng.h"

namespace fedmf::algorithms::fmf_party {

// A party about to compute a round: its key and the held embeddings the round starts from.
struct RoundStart {
  uint64_t key[2] = {0, 0};
  Eigen::MatrixXd held;  // rows x cols
};

// From the party's `state` bytes ("" before its first round): a fresh key from `rng` and
// `initial()` for round 0; held_before when `round` is the state's own round (a retry);
// held_after when it is the next one. FailedPrecondition for any other round (the party lost
// rounds, e.g. restarted without its state: "has no state for round" / "lost rounds");
// InvalidArgument for corrupt bytes or held embeddings of another shape. Errors start with
// `algorithm`.
absl::StatusOr<RoundStart> StartRound(absl::string_view algorithm, absl::string_view state,
                                      int64_t round, int64_t rows, int64_t cols,
                                      absl::FunctionRef<absl::StatusOr<Eigen::MatrixXd>()> initial,
                                      dp::Rng& rng);

// The state after computing `round` from `start` to `held`.
std::string EncodeState(const RoundStart& start, int64_t round, const Eigen::MatrixXd& held);

// The generator of the party's noise in `round`: keyed by 128 bits drawn from Rng(key) after
// skipping 2 round words.
dp::Rng RoundNoiseRng(const uint64_t key[2], int64_t round);

}  // namespace fedmf::algorithms::fmf_party

#endif  // FEDMF_COMMON_ALGORITHMS_LIB_FMF_PARTY_PARTY_ROUND_H_
