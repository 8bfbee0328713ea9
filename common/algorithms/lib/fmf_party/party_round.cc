#include "common/algorithms/lib/fmf_party/party_round.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/algorithms/matrix_proto.h"
#include "fedmf/v1/fmf_party.pb.h"

namespace fedmf::algorithms::fmf_party {

dp::Rng RoundNoiseRng(const uint64_t key[2], int64_t round) {
  dp::Rng base(key[0], key[1]);
  for (int64_t k = 0; k < 2 * round; ++k) base();
  const uint64_t a = base();
  const uint64_t b = base();
  return dp::Rng(a, b);
}

absl::StatusOr<RoundStart> StartRound(absl::string_view algorithm, absl::string_view bytes,
                                      int64_t round, int64_t rows, int64_t cols,
                                      absl::FunctionRef<absl::StatusOr<Eigen::MatrixXd>()> initial,
                                      dp::Rng& rng) {
  RoundStart start;
  if (bytes.empty()) {
    if (round != 0) {
      return absl::FailedPreconditionError(
          absl::StrCat(algorithm, ": the party has no state for round ", round,
                       " (it lost it, or joined late): its own embeddings cannot be recovered"));
    }
    start.key[0] = rng();
    start.key[1] = rng();
    absl::StatusOr<Eigen::MatrixXd> held = initial();
    if (!held.ok()) return held.status();
    start.held = *std::move(held);
    return start;
  }
  v1::FmfPartyState state;
  if (!state.ParseFromString(std::string(bytes))) {
    return absl::InvalidArgumentError(
        absl::StrCat(algorithm, ": party state is not an FmfPartyState"));
  }
  if (round != state.round() && round != state.round() + 1) {
    return absl::FailedPreconditionError(
        absl::StrCat(algorithm, ": the party's state is at round ", state.round(),
                     ", the coordinator plans round ", round, ": it lost rounds"));
  }
  const bool retry = round == state.round();
  absl::StatusOr<Eigen::MatrixXd> held =
      MatrixFromProto(retry ? state.held_before() : state.held_after(), rows, cols,
                      absl::StrCat(algorithm, " party-held embeddings"));
  if (!held.ok()) return held.status();
  start.key[0] = state.noise_key_0();
  start.key[1] = state.noise_key_1();
  start.held = *std::move(held);
  return start;
}

std::string EncodeState(const RoundStart& start, int64_t round, const Eigen::MatrixXd& held) {
  v1::FmfPartyState state;
  state.set_noise_key_0(start.key[0]);
  state.set_noise_key_1(start.key[1]);
  state.set_round(round);
  *state.mutable_held_before() = MatrixToProto(start.held);
  *state.mutable_held_after() = MatrixToProto(held);
  return state.SerializeAsString();
}

}  // namespace fedmf::algorithms::fmf_party
