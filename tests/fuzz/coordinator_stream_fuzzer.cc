// libFuzzer: a sequence of messages on one Participate stream, as raw bytes through
// DeliverClientMessage (server/connection.h), the reactor's own parse-and-deliver step: bytes that
// are not a ClientMessage are refused there (OnMessageRefused, INVALID_ARGUMENT), the rest reach
// Coordinator::OnClientMessage; a refusal ends the stream (OnStreamClosed, as the reactor's
// OnDone). The stream hosts users 1-4 of 6 (a second, quiet stream hosts 5-6). Byte 0 picks the
// setting:
//   bits 0-1: 0 no round running; 1 a SecAgg round (unsigned); 2 a SecAgg round with signed
//             advertisements; 3 a clear-upload round. In a round Coordinator::Run drives it on
//             its own thread, and the messages arrive once the tasks went out.
//   bit 2:    fix the headers of the messages that parse: participant id (SecAgg, clear
//             upload, chunk) to 1 + id % 4 and round to 0, so the payloads reach the SecAgg
//             session / clear aggregation (then re-serialized).
// Then length-prefixed messages (2 bytes little-endian, then the bytes). After them Admin.Status
// is answered, the run stopped and every stream closed. Any outcome but a crash or hang is fine.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "server/connection.h"
#include "tests/fuzz/coordinator_fuzz_support.h"
#include "wire/limits.h"

namespace {

using namespace fedmf;

// The honest side of the fuzzed stream: records whether a task arrived.
struct Inbox {
  std::mutex mu;
  std::condition_variable cv;
  bool task = false;
};

void FixHeaders(v1::ClientMessage& m) {
  auto fix = [](uint32_t id) { return 1 + id % 4; };
  if (m.has_secagg()) {
    m.mutable_secagg()->set_participant_id(fix(m.secagg().participant_id()));
    m.mutable_secagg()->set_round(0);
    m.mutable_secagg()->set_phase(0);
  } else if (m.has_clear_upload()) {
    m.mutable_clear_upload()->set_participant_id(fix(m.clear_upload().participant_id()));
    m.mutable_clear_upload()->set_round(0);
  } else if (m.has_chunk()) {
    m.mutable_chunk()->set_participant_id(fix(m.chunk().participant_id()));
    m.mutable_chunk()->set_round(0);
  }
}

std::shared_ptr<server::Connection> Open(server::Coordinator& coordinator, uint64_t id,
                                         uint32_t first, uint32_t last,
                                         server::Connection::Sink sink) {
  v1::RegisterRequest request;
  request.set_protocol_version(wire::kProtocolVersion);
  request.set_enrollment_token("token");
  request.set_signing_public_key(std::string(32, static_cast<char>(id)));
  for (uint32_t p = first; p <= last; ++p) request.add_participant_ids(p);
  v1::RegisterResponse response;
  if (!coordinator.Register(request, response, "").ok()) __builtin_trap();
  auto connection = std::make_shared<server::Connection>(id, "fuzz", std::move(sink));
  if (!coordinator.OnStreamOpen(connection, response.session_token()).ok()) __builtin_trap();
  return connection;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const int mode = data[0] & 3;
  const bool fix_headers = (data[0] & 4) != 0;
  auto coordinator = server::fuzzing::MakeCoordinator(/*secure_aggregation=*/mode != 3,
                                                      /*signatures=*/mode == 2);
  Inbox inbox;
  auto fuzzed = Open(*coordinator, 1, 1, 4, [&inbox](const v1::ServerMessage& m) {
    std::lock_guard<std::mutex> lock(inbox.mu);
    if (m.has_task() || m.has_chunk()) inbox.task = true;
    inbox.cv.notify_all();
  });
  auto quiet = Open(*coordinator, 2, 5, 6, [](const v1::ServerMessage&) {});
  std::thread driver;
  if (mode != 0) {
    driver = std::thread([&coordinator] { (void)coordinator->Run(); });
    std::unique_lock<std::mutex> lock(inbox.mu);
    if (!inbox.cv.wait_for(lock, std::chrono::seconds(5), [&inbox] { return inbox.task; })) {
      __builtin_trap();  // the round never started
    }
  }
  size_t at = 1;
  while (at + 2 <= size) {
    const size_t length = data[at] | (static_cast<size_t>(data[at + 1]) << 8);
    at += 2;
    if (length > size - at) break;
    std::string wire(reinterpret_cast<const char*>(data + at), length);
    at += length;
    if (v1::ClientMessage message; fix_headers && message.ParseFromString(wire)) {
      FixHeaders(message);
      wire = message.SerializeAsString();
    }
    grpc::Slice slice(wire);
    grpc::ByteBuffer bytes(&slice, 1);
    if (!server::DeliverClientMessage(*coordinator, fuzzed, bytes).ok()) {
      coordinator->OnStreamClosed(fuzzed);  // the stream ends: the reactor's OnDone
      break;
    }
  }
  (void)coordinator->Status();
  coordinator->Stop();
  if (driver.joinable()) driver.join();
  coordinator->OnStreamClosed(fuzzed);
  coordinator->OnStreamClosed(quiet);
  return 0;
}
