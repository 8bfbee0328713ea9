// The blocking gRPC transport of fedmf_transport.h. It moves opaque bytes (grpc::ByteBuffer) on
// the Federation methods, like an app's bytes marshaller, and links no generated fedmf code: the
// mobile library in the same process already registers fedmf/v1/*.proto with libprotobuf, and a
// second copy of the generated code would abort at start ("File already exists in database").
#include "client/transport/fedmf_transport.h"

#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/codegen/client_unary_call.h>
#include <grpcpp/impl/codegen/sync_stream.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "client/include/fedmf/fedmf_client.h"

struct fedmf_transport {
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<grpc::ClientContext> context;
  std::unique_ptr<grpc::ClientReaderWriter<grpc::ByteBuffer, grpc::ByteBuffer>> stream;
  std::string error;
};

namespace {

constexpr char kRegister[] = "/fedmf.v1.Federation/Register";
constexpr char kParticipate[] = "/fedmf.v1.Federation/Participate";
constexpr char kDownload[] = "/fedmf.v1.Models/Download";

grpc::ByteBuffer ToBuffer(const uint8_t* data, size_t len) {
  grpc::Slice slice(data, len);
  return grpc::ByteBuffer(&slice, 1);
}

// Copies `buffer` into a new malloc'ed array (freed with fedmf_transport_free).
bool Copy(const grpc::ByteBuffer& buffer, uint8_t** out, size_t* len) {
  std::vector<grpc::Slice> slices;
  if (!buffer.Dump(&slices).ok()) return false;
  auto* bytes = static_cast<uint8_t*>(std::malloc(buffer.Length() + 1));
  if (bytes == nullptr) return false;
  size_t at = 0;
  for (const grpc::Slice& s : slices) {
    std::memcpy(bytes + at, s.begin(), s.size());
    at += s.size();
  }
  *out = bytes;
  *len = at;
  return true;
}

}  // namespace

extern "C" {

fedmf_transport* fedmf_transport_connect(const char* target) {
  if (target == nullptr) return nullptr;
  // gRPC's default limits (4 MiB received), as an app's own stack has them: the library's
  // messages and the coordinator's must fit them (wire/chunking.h).
  auto transport = std::make_unique<fedmf_transport>();
  transport->channel = grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
  return transport.release();
}

void fedmf_transport_destroy(fedmf_transport* transport) {
  if (transport != nullptr && transport->stream != nullptr) transport->context->TryCancel();
  delete transport;
}

int fedmf_transport_register(fedmf_transport* transport, const uint8_t* request, size_t len,
                             int timeout_ms, uint8_t** response, size_t* response_len) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms));
  const grpc::internal::RpcMethod method(kRegister, grpc::internal::RpcMethod::NORMAL_RPC);
  grpc::ByteBuffer reply;
  const grpc::Status s = grpc::internal::BlockingUnaryCall<grpc::ByteBuffer, grpc::ByteBuffer>(
      transport->channel.get(), method, &context, ToBuffer(request, len), &reply);
  if (!s.ok()) {
    transport->error = s.error_message();
    return s.error_code();
  }
  if (!Copy(reply, response, response_len)) {
    transport->error = "cannot copy the response";
    return grpc::StatusCode::RESOURCE_EXHAUSTED;
  }
  return 0;
}

int fedmf_transport_open(fedmf_transport* transport, const uint8_t* session_token, size_t len) {
  transport->context = std::make_unique<grpc::ClientContext>();
  transport->context->AddMetadata(FEDMF_SESSION_TOKEN_METADATA_KEY,
                                  std::string(reinterpret_cast<const char*>(session_token), len));
  const grpc::internal::RpcMethod method(kParticipate, grpc::internal::RpcMethod::BIDI_STREAMING);
  transport->stream.reset(
      grpc::internal::ClientReaderWriterFactory<grpc::ByteBuffer, grpc::ByteBuffer>::Create(
          transport->channel.get(), method, transport->context.get()));
  return transport->stream == nullptr ? 1 : 0;
}

int fedmf_transport_write(fedmf_transport* transport, const uint8_t* message, size_t len) {
  if (transport->stream == nullptr || !transport->stream->Write(ToBuffer(message, len))) {
    transport->error = "the stream is closed";
    return 2;
  }
  return 0;
}

int fedmf_transport_read(fedmf_transport* transport, uint8_t** message, size_t* len) {
  grpc::ByteBuffer buffer;
  if (transport->stream == nullptr || !transport->stream->Read(&buffer)) return 1;
  if (!Copy(buffer, message, len)) {
    transport->error = "cannot copy a message";
    return 1;
  }
  return 0;
}

int fedmf_transport_finish(fedmf_transport* transport) {
  if (transport->stream == nullptr) return 0;
  transport->stream->WritesDone();
  const grpc::Status s = transport->stream->Finish();
  transport->stream.reset();
  transport->error = s.error_message();
  return s.error_code();
}

int fedmf_transport_download(fedmf_transport* transport, const uint8_t* session_token,
                             size_t token_len, const uint8_t* request, size_t len, int timeout_ms,
                             int (*on_chunk)(void* ctx, const uint8_t* chunk, size_t chunk_len),
                             void* ctx) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms));
  context.AddMetadata(FEDMF_SESSION_TOKEN_METADATA_KEY,
                      std::string(reinterpret_cast<const char*>(session_token), token_len));
  const grpc::internal::RpcMethod method(kDownload, grpc::internal::RpcMethod::SERVER_STREAMING);
  std::unique_ptr<grpc::ClientReader<grpc::ByteBuffer>> reader(
      grpc::internal::ClientReaderFactory<grpc::ByteBuffer>::Create(
          transport->channel.get(), method, &context, ToBuffer(request, len)));
  grpc::ByteBuffer buffer;
  while (reader->Read(&buffer)) {
    uint8_t* chunk = nullptr;
    size_t chunk_len = 0;
    if (!Copy(buffer, &chunk, &chunk_len)) {
      context.TryCancel();
      break;
    }
    const int stop = on_chunk(ctx, chunk, chunk_len);
    std::free(chunk);
    if (stop != 0) {
      context.TryCancel();
      break;
    }
  }
  const grpc::Status s = reader->Finish();
  transport->error = s.error_message();
  return s.error_code();
}

const char* fedmf_transport_error(const fedmf_transport* transport) {
  return transport->error.c_str();
}

void fedmf_transport_free(void* buffer) { std::free(buffer); }

}  // extern "C"
