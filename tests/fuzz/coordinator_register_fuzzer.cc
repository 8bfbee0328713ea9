// libFuzzer: a RegisterRequest (byte 0 bit 0: with the right enrollment token and protocol
// version, so the fuzzer gets past them) through Coordinator::Register, the entry point of
// Federation.Register; when accepted, its session token is presented on a stream, then the same
// request is registered and presented again on a second stream (its users are taken), and
// Admin.Status is answered. Every outcome must be a status, never a crash.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "tests/fuzz/coordinator_fuzz_support.h"
#include "wire/limits.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fedmf;
  if (size < 1) return 0;
  v1::RegisterRequest request;
  if (!request.ParseFromArray(data + 1, static_cast<int>(size - 1))) return 0;
  if (data[0] & 1) {
    request.set_enrollment_token("token");
    request.set_protocol_version(wire::kProtocolVersion);
  }
  auto coordinator = server::fuzzing::MakeCoordinator(true, true);
  for (uint64_t stream = 1; stream <= 2; ++stream) {
    v1::RegisterResponse response;
    if (!coordinator->Register(request, response, "").ok()) break;
    auto connection = std::make_shared<server::Connection>(stream, "fuzz");
    if (coordinator->OnStreamOpen(connection, response.session_token()).ok()) {
      // A bound stream cannot be bound again.
      if (coordinator->OnStreamOpen(connection, response.session_token()).ok()) __builtin_trap();
    }
  }
  (void)coordinator->Status();
  return 0;
}
