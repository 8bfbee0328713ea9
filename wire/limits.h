// The limits both ends of the federation wire agree on: the largest gRPC message each direction
// carries (larger messages travel in chunks well below it, wire/chunking.h) and the protocol
// version a RegisterRequest names. The coordinator, the clients and the mobile C API read them
// here, so the two ends cannot drift apart.
#ifndef FEDMF_WIRE_LIMITS_H_
#define FEDMF_WIRE_LIMITS_H_

namespace fedmf::wire {

inline constexpr int kMaxMessageBytes = 64 << 20;  // per gRPC message, each direction
// 2: aggregations are tagged (round, phase) instead of (round, evaluation).
inline constexpr unsigned kProtocolVersion = 2;

}  // namespace fedmf::wire

#endif  // FEDMF_WIRE_LIMITS_H_
