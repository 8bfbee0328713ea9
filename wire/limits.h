// The limits both ends of the federation wire agree on: the largest gRPC message each direction
// carries (larger messages travel in chunks well below it, wire/chunking.h) and the protocol
// version a RegisterRequest names, the metadata keys of the session token a Participate stream
// opens with and of an Admin call's token, and the size of a model download's chunks. The
// coordinator, the clients and the mobile C API read them here, so the two ends cannot drift
// apart.
#ifndef FEDMF_WIRE_LIMITS_H_
#define FEDMF_WIRE_LIMITS_H_

namespace fedmf::wire {

inline constexpr int kMaxMessageBytes = 64 << 20;  // per gRPC message, each direction
// 2: aggregations are tagged (round, phase) instead of (round, evaluation).
// 3: the session token travels in the Participate stream's metadata, not in its first message.
// 4: signing keys come with each ShareKeysRequest (the neighbors'), not with the task (the
//    cohort's).
// 5: every dealt Shamir share is committed (EncryptedShares commitments, RevealedShare salt,
//    docs/protocol.md "Misbehaving clients"): a version-4 client's shares would be refused in
//    every round, so it is refused at Register instead.
inline constexpr unsigned kProtocolVersion = 5;
// Binary gRPC metadata (the "-bin" suffix): the RegisterResponse.session_token bytes as they are.
inline constexpr char kSessionTokenMetadataKey[] = "fedmf-session-token-bin";
// An Admin call's token (the coordinator's --admin_token_file), as "authorization: Bearer TOKEN".
inline constexpr char kAdminTokenMetadataKey[] = "authorization";
inline constexpr char kAdminTokenPrefix[] = "Bearer ";
// The largest ModelChunk.data of Models.Download: well inside gRPC's default 4 MiB receive limit,
// which an app's own gRPC stack has.
inline constexpr unsigned kModelChunkBytes = 1u << 20;

}  // namespace fedmf::wire

#endif  // FEDMF_WIRE_LIMITS_H_
