// Transport limits both ends of the federation stream set explicitly (federation.proto explains
// why the model broadcast needs no chunking below this size).
#ifndef FEDMF_CLIENT_WIRE_LIMITS_H_
#define FEDMF_CLIENT_WIRE_LIMITS_H_

namespace fedmf::client {

inline constexpr int kMaxMessageBytes = 64 << 20;  // per gRPC message, each direction
inline constexpr unsigned kProtocolVersion = 1;

}  // namespace fedmf::client

#endif  // FEDMF_CLIENT_WIRE_LIMITS_H_
