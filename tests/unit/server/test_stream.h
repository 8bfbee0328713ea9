// Test support: a device's stream to a DeviceEndpoint (a coordinator or a front) through an
// in-process Connection that records what is sent to it.
#ifndef FEDMF_TESTS_UNIT_SERVER_TEST_STREAM_H_
#define FEDMF_TESTS_UNIT_SERVER_TEST_STREAM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "server/device_endpoint.h"
#include "wire/limits.h"

namespace fedmf::server::testing {

struct TestStream {
  std::shared_ptr<Connection> connection;
  std::shared_ptr<std::vector<v1::ServerMessage>> inbox =
      std::make_shared<std::vector<v1::ServerMessage>>();
};

// A registration of `ids` with enrollment token `token` and signing key `signing_key`.
inline v1::RegisterRequest RegistrationOf(const std::vector<uint32_t>& ids,
                                        const std::string& token = "token",
                                        std::string signing_key = std::string(32, 'k')) {
  v1::RegisterRequest request;
  request.set_protocol_version(wire::kProtocolVersion);
  request.set_enrollment_token(token);
  request.set_signing_public_key(std::move(signing_key));
  for (uint32_t id : ids) request.add_participant_ids(id);
  return request;
}

// Registers `request` at `endpoint` from TLS identity `identity` (empty: none) and opens its
// stream, expecting both to succeed.
inline TestStream OpenStream(DeviceEndpoint& endpoint, const v1::RegisterRequest& request,
                             const std::string& identity = "") {
  v1::RegisterResponse response;
  EXPECT_TRUE(endpoint.Register(request, response, identity).ok());
  TestStream s;
  s.connection = std::make_shared<Connection>(
      endpoint.NextConnectionId(), "test",
      [inbox = s.inbox](const v1::ServerMessage& m) { inbox->push_back(m); },
      StreamLimits().max_queued_bytes, identity);
  EXPECT_TRUE(endpoint.OnStreamOpen(s.connection, response.session_token()).ok());
  return s;
}

}  // namespace fedmf::server::testing

#endif  // FEDMF_TESTS_UNIT_SERVER_TEST_STREAM_H_
