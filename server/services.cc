#include "server/services.h"

#include <openssl/crypto.h>

#include <algorithm>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "common/util/event_log.h"
#include "server/connection.h"
#include "server/server_tls.h"
#include "wire/limits.h"

namespace fedmf::server {
namespace {

// A Participate stream refused at open (over the limit, or a revoked identity): ended at once
// with `status`, nothing read.
class RefusedStream final : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  explicit RefusedStream(const grpc::Status& status) { Finish(status); }
  void OnDone() override { delete this; }
};

// The session token the client opened the stream with (wire::kSessionTokenMetadataKey).
std::optional<absl::string_view> SessionTokenOf(const grpc::CallbackServerContext& context) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(wire::kSessionTokenMetadataKey);
  if (it == metadata.end()) return std::nullopt;
  return absl::string_view(it->second.data(), it->second.size());
}

// One Models.Download call: the model from `offset` on, a chunk at a time; or, with no model,
// just `refusal`.
class ModelDownload final : public grpc::ServerWriteReactor<v1::ModelChunk> {
 public:
  // `store` (where `model` is kept) counts the download once its last byte is sent.
  ModelDownload(ModelStore* store, std::shared_ptr<const ModelStore::Published> model,
                uint64_t offset)
      : store_(store), model_(std::move(model)), offset_(offset) {
    *chunk_.mutable_version() = model_->version;
    WriteNext();
  }
  explicit ModelDownload(const grpc::Status& refusal) { Finish(refusal); }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the download was broken off"));
      return;
    }
    chunk_.clear_version();  // on the first chunk only
    WriteNext();
  }
  void OnDone() override { delete this; }

 private:
  void WriteNext() {
    const std::string& bytes = model_->model;
    if (offset_ >= bytes.size()) {
      store_->CountDownload();
      Finish(grpc::Status::OK);
      return;
    }
    const size_t length = std::min<size_t>(wire::kModelChunkBytes, bytes.size() - offset_);
    chunk_.set_offset(offset_);
    chunk_.set_data(bytes.substr(offset_, length));
    offset_ += length;
    StartWrite(&chunk_);
  }

  ModelStore* store_ = nullptr;
  std::shared_ptr<const ModelStore::Published> model_;
  uint64_t offset_ = 0;
  v1::ModelChunk chunk_;
};

}  // namespace

grpc::ServerUnaryReactor* FederationService::Register(grpc::CallbackServerContext* context,
                                                      const v1::RegisterRequest* request,
                                                      v1::RegisterResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const absl::Time now = absl::Now();
  if (!registrations_.Allow(context->peer(), now)) {
    refused_registrations_.fetch_add(1);
    int64_t last = last_refusal_line_ns_.load();
    if (absl::ToUnixNanos(now) - last >= 1'000'000'000 &&
        last_refusal_line_ns_.compare_exchange_strong(last, absl::ToUnixNanos(now))) {
      EventLine("register_rate_limited")
          .Add("peer", context->peer())
          .Add("refused", refused_registrations_.exchange(0))
          .Add("limit_per_s", limits_.registrations_per_second);
    }
    reactor->Finish(grpc::Status(
        grpc::StatusCode::RESOURCE_EXHAUSTED,
        absl::StrCat("too many registrations from this address (at most ",
                     limits_.registrations_per_second, " a second); retry with backoff")));
    return reactor;
  }
  const std::string identity = PeerIdentity(*context);
  if (policy_ != nullptr) {
    if (const absl::Status admitted = policy_->Admit(identity); !admitted.ok()) {
      EventLine("register")
          .Add("client", request->client_name().substr(0, 128))
          .Add("identity", identity)
          .Add("peer", context->peer())
          .Add("status", admitted.ToString());
      reactor->Finish(ToGrpc(admitted));
      return reactor;
    }
  }
  reactor->Finish(ToGrpc(endpoint_->Register(*request, *response, identity)));
  return reactor;
}

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* FederationService::Participate(
    grpc::CallbackServerContext* context) {
  const std::string identity = PeerIdentity(*context);
  // A revoked identity opens no stream, whatever session token it presents.
  if (policy_ != nullptr) {
    if (const absl::Status admitted = policy_->Admit(identity); !admitted.ok()) {
      EventLine("stream_refused")
          .Add("identity", identity)
          .Add("peer", context->peer())
          .Add("status", admitted.ToString());
      return new RefusedStream(ToGrpc(admitted));
    }
  }
  // Authenticated before anything is read: a stream without a session token costs nothing.
  const std::optional<absl::string_view> token = SessionTokenOf(*context);
  if (!token) {
    EventLine("stream_refused").Add("peer", context->peer()).Add("reason", "no session token");
    return new RefusedStream(
        grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                     absl::StrCat("no session token: open the stream with metadata '",
                                  wire::kSessionTokenMetadataKey, "' (protocol version ",
                                  wire::kProtocolVersion, ")")));
  }
  // A token no registration holds, or one issued on another certificate, is refused before the
  // stream takes one of the max_streams places, so that a flood of wrong tokens cannot crowd out
  // registered clients.
  if (const absl::Status known = endpoint_->CheckSessionToken(*token, identity); !known.ok()) {
    EventLine line("stream_refused");
    line.Add("peer", context->peer());
    if (!identity.empty()) line.Add("identity", identity);
    line.Add("reason", known.message());
    return new RefusedStream(ToGrpc(known));
  }
  if (!streams_.TryAcquire()) {
    EventLine("stream_refused")
        .Add("peer", context->peer())
        .Add("max_streams", limits_.max_streams);
    return new RefusedStream(grpc::Status(
        grpc::StatusCode::RESOURCE_EXHAUSTED,
        "too many streams: the coordinator serves at most " + std::to_string(limits_.max_streams)));
  }
  return new FederationReactor(endpoint_, endpoint_->NextConnectionId(), context->peer(), identity,
                               *token, limits_, &streams_);
}

grpc::ServerWriteReactor<v1::ModelChunk>* ModelsService::Download(
    grpc::CallbackServerContext* context, const v1::DownloadModelRequest* request) {
  const std::string identity = PeerIdentity(*context);
  if (policy_ != nullptr) {
    if (const absl::Status admitted = policy_->Admit(identity); !admitted.ok()) {
      return new ModelDownload(ToGrpc(admitted));
    }
  }
  const std::optional<absl::string_view> token = SessionTokenOf(*context);
  if (!token) {
    return new ModelDownload(
        grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                     absl::StrCat("no session token: call Download with the metadata '",
                                  wire::kSessionTokenMetadataKey, "' of a registration")));
  }
  absl::StatusOr<std::shared_ptr<const ModelStore::Published>> model =
      endpoint_->ModelForDownload(*token, identity, request->version());
  if (!model.ok()) {
    EventLine("model_download_refused")
        .Add("peer", context->peer())
        .Add("version", request->version())
        .Add("reason", model.status().message());
    return new ModelDownload(ToGrpc(model.status()));
  }
  if (request->offset() >= (*model)->model.size()) {
    return new ModelDownload(
        grpc::Status(grpc::StatusCode::OUT_OF_RANGE,
                     absl::StrCat("offset ", request->offset(), " is not inside model version ",
                                  request->version(), " (", (*model)->model.size(), " bytes)")));
  }
  return new ModelDownload(endpoint_->published_models(), *std::move(model), request->offset());
}

namespace {

// Whether `context`'s metadata "authorization" is "Bearer `token`".
bool PresentsToken(const grpc::CallbackServerContext& context, absl::string_view token) {
  const auto& metadata = context.client_metadata();
  const auto it = metadata.find(wire::kAdminTokenMetadataKey);
  if (it == metadata.end()) return false;
  absl::string_view presented(it->second.data(), it->second.size());
  if (!absl::ConsumePrefix(&presented, wire::kAdminTokenPrefix)) return false;
  return presented.size() == token.size() &&
         CRYPTO_memcmp(presented.data(), token.data(), token.size()) == 0;
}

}  // namespace

absl::StatusOr<std::string> AdminService::Authorize(const grpc::CallbackServerContext& context,
                                                    absl::string_view method) const {
  std::string identity = PeerIdentity(context);
  absl::Status refused;
  if (!access_.identities.empty() && !access_.identities.contains(identity)) {
    refused = absl::PermissionDeniedError(
        absl::StrCat("identity '", identity, "' is not an admin identity"));
  } else if (!access_.token.empty() && !PresentsToken(context, access_.token)) {
    refused = absl::UnauthenticatedError(
        "no admin token, or a wrong one (the coordinator's --admin_token_file)");
  }
  if (refused.ok()) return identity;
  EventLine("admin_refused")
      .Add("method", method)
      .Add("identity", identity)
      .Add("peer", context.peer())
      .Add("code", absl::StatusCodeToString(refused.code()));
  return refused;
}

grpc::ServerUnaryReactor* AdminService::Status(grpc::CallbackServerContext* context,
                                               const v1::StatusRequest*,
                                               v1::StatusResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (absl::StatusOr<std::string> identity = Authorize(*context, "Status"); !identity.ok()) {
    reactor->Finish(ToGrpc(identity.status()));
    return reactor;
  }
  *response = coordinator_->Status();
  AddRunCounts(runs_, *response);
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

template <typename Call>
grpc::ServerUnaryReactor* AdminService::RunCall(grpc::CallbackServerContext* context,
                                                absl::string_view method, Call call) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  absl::StatusOr<std::string> identity = Authorize(*context, method);
  if (!identity.ok()) {
    reactor->Finish(ToGrpc(identity.status()));
  } else if (runs_ == nullptr) {
    reactor->Finish(grpc::Status(
        grpc::StatusCode::UNIMPLEMENTED,
        absl::StrCat(method,
                     ": this coordinator takes no submitted runs (it trains the run of its "
                     "command line; start one with --service to submit runs)")));
  } else {
    reactor->Finish(ToGrpc(call(*identity)));
  }
  return reactor;
}

grpc::ServerUnaryReactor* AdminService::SubmitRun(grpc::CallbackServerContext* context,
                                                  const v1::RunSpec* request,
                                                  v1::RunRecord* response) {
  return RunCall(context, "SubmitRun", [&](const std::string& identity) {
    absl::StatusOr<v1::RunRecord> record = runs_->Submit(*request, identity);
    if (record.ok()) *response = *std::move(record);
    return record.status();
  });
}

grpc::ServerUnaryReactor* AdminService::ListRuns(grpc::CallbackServerContext* context,
                                                 const v1::ListRunsRequest*,
                                                 v1::ListRunsResponse* response) {
  return RunCall(context, "ListRuns", [&](const std::string&) {
    *response = runs_->List();
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* AdminService::CancelRun(grpc::CallbackServerContext* context,
                                                  const v1::CancelRunRequest* request,
                                                  v1::RunRecord* response) {
  return RunCall(context, "CancelRun", [&](const std::string& identity) {
    absl::StatusOr<v1::RunRecord> record = runs_->Cancel(request->id(), identity);
    if (record.ok()) *response = *std::move(record);
    return record.status();
  });
}

}  // namespace fedmf::server
