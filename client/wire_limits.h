// Transport limits both ends of the federation stream set explicitly. Larger messages travel in
// chunks well below this limit (wire/chunking.h).
#ifndef FEDMF_CLIENT_WIRE_LIMITS_H_
#define FEDMF_CLIENT_WIRE_LIMITS_H_

namespace fedmf::client {

inline constexpr int kMaxMessageBytes = 64 << 20;  // per gRPC message, each direction
inline constexpr unsigned kProtocolVersion = 1;

}  // namespace fedmf::client

#endif  // FEDMF_CLIENT_WIRE_LIMITS_H_
