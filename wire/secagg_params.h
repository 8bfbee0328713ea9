// Conversion between the wire form of a SecAgg session's parameters (fedmf.v1.SecAggParams) and
// crypto/secagg's SessionConfig, and of signing key directories (ServerToParticipant.signing_keys),
// for both ends of the wire: the coordinator writes them into tasks and ShareKeysRequests, the
// client core reads them.
// Results are validated, so a malformed task from the network is an error, never a crash.
#ifndef FEDMF_WIRE_SECAGG_PARAMS_H_
#define FEDMF_WIRE_SECAGG_PARAMS_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "crypto/secagg/config.h"
#include "crypto/secagg/signing_directory.h"
#include "fedmf/v1/federation.pb.h"

namespace fedmf::wire {

// secagg::ConfigToProto / ConfigFromProto (crypto/secagg/config.h), under the names the runtime
// uses.
v1::SecAggParams ToProto(const secagg::SessionConfig& config);

// InvalidArgument (from secagg::ValidateConfig) for out-of-range parameters.
absl::StatusOr<secagg::SessionConfig> FromProto(const v1::SecAggParams& params);

// The directory of `keys` (one entry per key, listing the participants it signs for).
// InvalidArgument for a key that is not 32 bytes or a participant listed twice (an invalid
// point fails every verification later).
absl::StatusOr<std::shared_ptr<secagg::MapSigningKeyDirectory>> DirectoryFromProto(
    const google::protobuf::RepeatedPtrField<v1::SigningKeys>& keys);

// The keys `directory` holds for `ids` (an id it lacks is left out), one entry per key in the
// order of first use, each listing its ids in the order given.
google::protobuf::RepeatedPtrField<v1::SigningKeys> DirectoryToProto(
    const secagg::SigningKeyDirectory& directory, absl::Span<const uint32_t> ids);

}  // namespace fedmf::wire

#endif  // FEDMF_WIRE_SECAGG_PARAMS_H_
