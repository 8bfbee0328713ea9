// DeliverClientMessage: bytes over the handler's ClientMessageBounds, in size or in repeated
// elements, are refused before they are parsed; bytes within them reach OnClientMessage. An
// OutgoingMessage is serialized once for all the streams that send it.
#include "server/connection.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "wire/chunking.h"

namespace fedmf::server {
namespace {

class Recorder final : public StreamHandler {
 public:
  absl::Status OnStreamOpen(const std::shared_ptr<Connection>&, absl::string_view) override {
    return absl::OkStatus();
  }
  absl::Status OnClientMessage(const std::shared_ptr<Connection>&,
                               const v1::ClientMessage&) override {
    ++delivered;
    return absl::OkStatus();
  }
  void OnStreamClosed(const std::shared_ptr<Connection>&) override {}
  void OnMessageRefused(const std::shared_ptr<Connection>&, const absl::Status& status) override {
    refused = status;
  }
  MessageBounds ClientMessageBounds() const override {
    return {.max_bytes = 200, .max_elements = 3};
  }

  int delivered = 0;
  absl::Status refused;
};

grpc::ByteBuffer Bytes(const v1::ClientMessage& m) {
  const std::string bytes = m.SerializeAsString();
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

absl::Status Deliver(Recorder& handler, const v1::ClientMessage& m) {
  grpc::ByteBuffer bytes = Bytes(m);
  return DeliverClientMessage(handler, std::make_shared<Connection>(1, "test"), bytes);
}

// A broadcast's message is serialized once, on first use, and every stream writes those bytes;
// an in-process sink gets the message itself.
TEST(ConnectionTest, AnOutgoingMessageIsSerializedOnceForEveryStream) {
  v1::ServerMessage m;
  m.mutable_result()->set_round(7);
  m.mutable_result()->set_reason(std::string(1000, 'r'));
  auto out = std::make_shared<const OutgoingMessage>(m);
  EXPECT_EQ(out->size(), m.ByteSizeLong());
  grpc::Status first, second;
  const grpc::ByteBuffer& bytes = out->Bytes(first);
  EXPECT_EQ(&out->Bytes(second), &bytes);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(bytes.Length(), m.ByteSizeLong());
  grpc::ByteBuffer copy = bytes;  // what a stream's write holds: a reference
  v1::ServerMessage parsed;
  ASSERT_TRUE(grpc::SerializationTraits<v1::ServerMessage>::Deserialize(&copy, &parsed).ok());
  EXPECT_EQ(parsed.SerializeAsString(), m.SerializeAsString());

  int delivered = 0;
  auto sink = [&](const v1::ServerMessage& got) {
    EXPECT_EQ(got.result().round(), 7);
    ++delivered;
  };
  Connection a(1, "a", sink), b(2, "b", sink);
  EXPECT_EQ(a.Send(out), m.ByteSizeLong());
  EXPECT_EQ(b.Send(out), m.ByteSizeLong());
  EXPECT_EQ(delivered, 2);
}

TEST(ConnectionTest, DeliversAMessageWithinTheBounds) {
  Recorder handler;
  v1::ClientMessage m;
  for (uint64_t v : {1, 2, 3}) m.mutable_clear_upload()->add_values(v);
  EXPECT_TRUE(Deliver(handler, m).ok());
  EXPECT_EQ(handler.delivered, 1);
}

TEST(ConnectionTest, RefusesMoreBytesThanTheBoundAndAChunksHeader) {
  Recorder handler;
  v1::ClientMessage m;
  m.mutable_secagg()->mutable_message()->mutable_masked_input()->set_packed(
      std::string(200 + wire::kChunkOverheadBytes, 'x'));
  const absl::Status status = Deliver(handler, m);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("exceeds the plan's largest message of 200 bytes"),
            std::string::npos)
      << status.message();
  EXPECT_EQ(handler.refused, status);
  EXPECT_EQ(handler.delivered, 0);
}

TEST(ConnectionTest, RefusesMoreRepeatedElementsThanTheBoundUnparsed) {
  Recorder handler;
  v1::ClientMessage m;
  auto* shares = m.mutable_secagg()->mutable_message()->mutable_share_keys()->mutable_shares();
  for (int i = 0; i < 4; ++i) shares->Add();
  const absl::Status status = Deliver(handler, m);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("fedmf.v1.secagg.ShareKeysResponse.shares"), std::string::npos)
      << status.message();
  EXPECT_EQ(handler.delivered, 0);
}

TEST(ConnectionTest, StillRefusesBytesThatDoNotParse) {
  Recorder handler;
  grpc::Slice slice(std::string("\x0f\xff\xff\xff\xff\x07garbage", 12));
  grpc::ByteBuffer bytes(&slice, 1);
  const absl::Status status =
      DeliverClientMessage(handler, std::make_shared<Connection>(1, "test"), bytes);
  EXPECT_EQ(status, absl::InvalidArgumentError("unparseable ClientMessage"));
  EXPECT_EQ(handler.delivered, 0);
}

}  // namespace
}  // namespace fedmf::server
