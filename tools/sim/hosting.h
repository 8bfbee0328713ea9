// fedmf-sim's hosting of the run's participants, checked before any round: users (no --parties),
// or the silo parties of --parties=KIND:N (client/party_spec.h), each hosted as fedmf-client
// --party=KIND:I/N would host it. An algorithm that cannot run with the hosting (its
// AlgorithmDefinition::hosting, algorithms/registry.h), or parties too few or too many for its
// rounds, is refused with what to use instead.
#ifndef FEDMF_TOOLS_SIM_HOSTING_H_
#define FEDMF_TOOLS_SIM_HOSTING_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "client/party_spec.h"
#include "common/algorithms/registry.h"
#include "fedmf/v1/algorithm.pb.h"

namespace fedmf::sim {

// OK when `algorithm` takes contributions from users (`parties` empty) or from parties of their
// kind (`parties`, parsed from --parties=`parties_flag`); otherwise InvalidArgument naming
// --algorithm, the flags of the hosting it needs, and the algorithms that run with the given
// hosting.
absl::Status CheckHosting(const algorithms::AlgorithmDefinition& algorithm,
                          const std::vector<client::PartySpec>& parties,
                          absl::string_view parties_flag);

// OK unless `parties` is non-empty and their number is outside the first round's
// [min_contributors, max_contributors] of `plan` (the algorithm's number of parties, e.g.
// vfl-sgdmf's option `parties`): InvalidArgument naming --parties and that number, as no round could complete.
absl::Status CheckPartyCount(const v1::RoundPlan& plan,
                             const std::vector<client::PartySpec>& parties,
                             absl::string_view parties_flag);

}  // namespace fedmf::sim

#endif  // FEDMF_TOOLS_SIM_HOSTING_H_
