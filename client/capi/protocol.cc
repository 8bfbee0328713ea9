// C API: registration, the Participate stream's messages, progress and local model queries
// (client/include/fedmf/fedmf_client.h).
#include <algorithm>
#include <climits>
#include <optional>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "client/capi/capi_internal.h"
#include "client/registration.h"
#include "common/algorithms/scorer.h"
#include "fedmf/v1/federation.pb.h"
#include "wire/limits.h"

using fedmf::capi::Fail;
using fedmf::capi::FromStatus;
using fedmf::capi::Guard;

// The C header spells the key for apps; it must be the one the coordinator reads.
static_assert(std::string_view(FEDMF_SESSION_TOKEN_METADATA_KEY) ==
              fedmf::wire::kSessionTokenMetadataKey);

namespace {

// The participant the handle hosts (always present: the handle was created with it).
const fedmf::client::Participant& Self(const fedmf_participant& p) {
  return *p.host->Find(p.config.participant_id());
}

// The model recommendations and predictions use, or FailedPrecondition.
fedmf_status Model(const fedmf_participant* p, const fedmf::algorithms::Scorer** out) {
  if (p == nullptr) return Fail(FEDMF_ERR_INVALID_ARGUMENT, "participant is NULL");
  const fedmf::algorithms::Contributor* contributor = p->host->contributor();
  if (contributor == nullptr) {
    return Fail(FEDMF_ERR_FAILED_PRECONDITION, "no model has arrived yet");
  }
  *out = &contributor->scorer();
  return FEDMF_OK;
}

// Well-formed UTF-8 (RFC 3629: no overlongs, no surrogates, at most U+10FFFF).
bool IsUtf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = 0;
    uint32_t cp = 0, min = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      n = 1, cp = c & 0x1f, min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
      n = 2, cp = c & 0x0f, min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
      n = 3, cp = c & 0x07, min = 0x10000;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;  // truncated sequence
    for (size_t k = 1; k <= n; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += n + 1;
  }
  return true;
}

}  // namespace

extern "C" {

uint32_t fedmf_protocol_version(void) { return fedmf::wire::kProtocolVersion; }

uint32_t fedmf_participant_id(const fedmf_participant* participant) {
  return participant == nullptr ? 0 : participant->config.participant_id();
}

fedmf_status fedmf_participant_register_request(const fedmf_participant* participant,
                                                const char* client_name,
                                                const char* enrollment_token, uint8_t** out,
                                                size_t* out_len) {
  return Guard([&] {
    if (participant == nullptr || out == nullptr || out_len == nullptr) {
      return Fail(FEDMF_ERR_INVALID_ARGUMENT, "participant, out or out_len is NULL");
    }
    const std::string name = client_name == nullptr ? "" : client_name;
    const std::string token = enrollment_token == nullptr ? "" : enrollment_token;
    // Both are protobuf strings: the coordinator would fail to parse invalid UTF-8.
    if (!IsUtf8(name) || !IsUtf8(token)) {
      return Fail(FEDMF_ERR_INVALID_ARGUMENT, "client name or enrollment token is not UTF-8");
    }
    return fedmf::capi::ReturnBytes(
        fedmf::client::MakeRegisterRequest(*participant->host, name, token).SerializeAsString(),
        out, out_len);
  });
}

fedmf_status fedmf_participant_open_stream(fedmf_participant* participant, const uint8_t* response,
                                           size_t response_len, uint8_t** out, size_t* out_len) {
  return Guard([&] {
    if (participant == nullptr || out == nullptr || out_len == nullptr ||
        (response == nullptr && response_len != 0) || response_len > INT_MAX) {
      return Fail(FEDMF_ERR_INVALID_ARGUMENT, "participant, out, out_len or response is invalid");
    }
    fedmf::v1::RegisterResponse parsed;
    if (absl::Status s = fedmf::capi::ParseBlob(response, response_len, parsed); !s.ok()) {
      return FromStatus(s);
    }
    if (absl::Status valid = fedmf::client::ValidateRegisterResponse(parsed); !valid.ok()) {
      return FromStatus(valid);
    }
    if (parsed.training_done()) participant->registered_done = true;
    participant->latest_published = parsed.latest_model();
    return fedmf::capi::ReturnBytes(parsed.session_token(), out, out_len);
  });
}

fedmf_status fedmf_participant_handle(fedmf_participant* participant, const uint8_t* message,
                                      size_t message_len, fedmf_messages** replies) {
  return Guard([&] {
    if (replies == nullptr) return Fail(FEDMF_ERR_INVALID_ARGUMENT, "replies is NULL");
    *replies = nullptr;
    if (participant == nullptr || (message == nullptr && message_len != 0)) {
      return Fail(FEDMF_ERR_INVALID_ARGUMENT, "participant or message is NULL");
    }
    // No gRPC message is larger: refuse before parsing.
    if (message_len > static_cast<size_t>(fedmf::wire::kMaxMessageBytes)) {
      return Fail(FEDMF_ERR_INVALID_ARGUMENT,
                  absl::StrCat("server message of ", message_len, " bytes exceeds ",
                               fedmf::wire::kMaxMessageBytes));
    }
    fedmf::v1::ServerMessage parsed;
    if (absl::Status s = fedmf::capi::ParseBlob(message, message_len, parsed); !s.ok()) {
      return FromStatus(s);
    }
    absl::StatusOr<std::vector<fedmf::v1::ClientMessage>> out = participant->host->Handle(parsed);
    if (!out.ok()) return FromStatus(out.status());
    auto list = std::make_unique<fedmf_messages>();
    for (const fedmf::v1::ClientMessage& m : *out) {
      list->serialized.push_back(m.SerializeAsString());
    }
    *replies = list.release();
    return FEDMF_OK;
  });
}

size_t fedmf_messages_count(const fedmf_messages* messages) {
  return messages == nullptr ? 0 : messages->serialized.size();
}

fedmf_status fedmf_messages_get(const fedmf_messages* messages, size_t index, const uint8_t** data,
                                size_t* len) {
  if (messages == nullptr || data == nullptr || len == nullptr) {
    return Fail(FEDMF_ERR_INVALID_ARGUMENT, "messages, data or len is NULL");
  }
  if (index >= messages->serialized.size()) {
    return Fail(FEDMF_ERR_INVALID_ARGUMENT,
                absl::StrCat("index ", index, " of a list of ", messages->serialized.size()));
  }
  const std::string& m = messages->serialized[index];
  *data = reinterpret_cast<const uint8_t*>(m.data());
  *len = m.size();
  return FEDMF_OK;
}

void fedmf_messages_free(fedmf_messages* messages) { delete messages; }

int64_t fedmf_participant_rounds_completed(const fedmf_participant* participant) {
  return participant == nullptr ? 0 : participant->host->rounds_completed();
}

int fedmf_participant_training_done(const fedmf_participant* participant) {
  return participant != nullptr &&
         (participant->host->training_done() || participant->registered_done);
}

int64_t fedmf_participant_take_check_in_ms(fedmf_participant* participant) {
  if (participant == nullptr) return -1;
  const std::optional<absl::Duration> later = participant->host->TakeCheckIn();
  return later ? absl::ToInt64Milliseconds(*later) : -1;
}

int fedmf_participant_has_model(const fedmf_participant* participant) {
  return participant != nullptr && participant->host->contributor() != nullptr;
}

int32_t fedmf_participant_model_num_items(const fedmf_participant* participant) {
  if (participant == nullptr || participant->host->contributor() == nullptr) return 0;
  return participant->host->contributor()->scorer().num_items();
}

fedmf_status fedmf_participant_recommend(const fedmf_participant* participant, int32_t n,
                                         int32_t* items, double* scores, size_t capacity,
                                         size_t* count) {
  return Guard([&] {
    if (count == nullptr || (capacity != 0 && (items == nullptr || scores == nullptr))) {
      return Fail(FEDMF_ERR_INVALID_ARGUMENT, "count, or items/scores with capacity > 0, is NULL");
    }
    *count = 0;
    const fedmf::algorithms::Scorer* model = nullptr;
    if (fedmf_status s = Model(participant, &model); s != FEDMF_OK) return s;
    if (n < 1) return Fail(FEDMF_ERR_INVALID_ARGUMENT, absl::StrCat("n must be >= 1, got ", n));
    absl::StatusOr<std::vector<fedmf::mf::Recommendation>> top =
        Self(*participant).Recommend(*model, n);
    if (!top.ok()) return FromStatus(top.status());
    const size_t written = std::min(capacity, top->size());
    for (size_t k = 0; k < written; ++k) {
      items[k] = (*top)[k].item;
      scores[k] = (*top)[k].score;
    }
    *count = written;
    return FEDMF_OK;
  });
}

fedmf_status fedmf_participant_predict(const fedmf_participant* participant, int32_t item,
                                       double* rating) {
  return Guard([&] {
    if (rating == nullptr) return Fail(FEDMF_ERR_INVALID_ARGUMENT, "rating is NULL");
    const fedmf::algorithms::Scorer* model = nullptr;
    if (fedmf_status s = Model(participant, &model); s != FEDMF_OK) return s;
    if (item < 0 || item >= model->num_items()) {
      return Fail(FEDMF_ERR_INVALID_ARGUMENT, absl::StrCat("item ", item, " outside the model's ",
                                                           model->num_items(), " items"));
    }
    if (!model->predicts_ratings()) {
      return Fail(FEDMF_ERR_FAILED_PRECONDITION, "the model ranks items but predicts no ratings");
    }
    // As the federated evaluation scores ratings (federated_evaluation::EvaluateUsers).
    absl::StatusOr<Eigen::VectorXd> predicted =
        model->PredictRatings(Self(*participant).ratings(), 0);
    if (!predicted.ok()) return FromStatus(predicted.status());
    *rating = (*predicted)[item];
    return FEDMF_OK;
  });
}

fedmf_status fedmf_participant_user_factor(const fedmf_participant* participant, double* out,
                                           size_t capacity, size_t* len) {
  if (participant == nullptr || len == nullptr || (capacity != 0 && out == nullptr)) {
    return Fail(FEDMF_ERR_INVALID_ARGUMENT, "participant, len, or out with capacity > 0, is NULL");
  }
  const Eigen::VectorXd& factor = Self(*participant).user_factor();
  const size_t size = static_cast<size_t>(factor.size());
  std::copy_n(factor.data(), std::min(capacity, size), out);
  *len = size;
  return FEDMF_OK;
}

}  // extern "C"
