// Turns a recorded SecAgg session into the test-vector JSON described in docs/vectors/README.md:
// the secrets the session drew, and every value docs/protocol.md derives from them, computed with
// fedmf's own derivations (derivation.h, prg.h, shamir.h, vector_codec.h). Each value is also
// checked against what the session did (each advertisement commits to the recorded b and is signed
// over it, the ciphertexts decrypt under the recorded keys, each masked input is the input plus
// the recorded masks and reports no unusable shares, the shares rebuild the secrets and these pass
// the server's checks, the sum is the sum of the included inputs): an inconsistency is an error,
// never a file.
#ifndef FEDMF_TOOLS_SECAGG_VECTORS_VECTORS_JSON_H_
#define FEDMF_TOOLS_SECAGG_VECTORS_VECTORS_JSON_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "tools/secagg_vectors/session_recorder.h"

namespace fedmf::secagg_vectors {

absl::StatusOr<nlohmann::ordered_json> SessionVectors(const RecordedSession& session,
                                                      absl::string_view name,
                                                      absl::string_view description);

}  // namespace fedmf::secagg_vectors

#endif  // FEDMF_TOOLS_SECAGG_VECTORS_VECTORS_JSON_H_
