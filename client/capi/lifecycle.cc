// C API: errors, buffers, creating and destroying participants, their local ratings
// (client/include/fedmf/fedmf_client.h). Saving and restoring them: persistence.cc.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "client/capi/capi_internal.h"
#include "common/dp/dp_conversion.h"
#include "fedmf/build_info.h"
#include "wire/chunking.h"
#include "wire/utf8_fields.h"

namespace fedmf::capi {
namespace {

thread_local std::string last_error;

// Fields of a config or a restored config that the library relies on.
absl::Status ValidateConfig(const v1::ParticipantConfig& config) {
  if (config.participant_id() == 0) {
    return absl::InvalidArgumentError("config: participant_id must be >= 1, got 0");
  }
  if (config.num_items() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("config: num_items must be >= 1, got ", config.num_items()));
  }
  if (config.chunk_bytes() != 0 && (config.chunk_bytes() < wire::kMinChunkBytes ||
                                    config.chunk_bytes() > wire::kMaxChunkBytes)) {
    return absl::InvalidArgumentError(absl::StrCat("config: chunk_bytes ", config.chunk_bytes(),
                                                   " outside [", wire::kMinChunkBytes, ", ",
                                                   wire::kMaxChunkBytes, "] (0: default)"));
  }
  if (config.max_download_bytes() != 0) {
    return wire::ValidateTransferBytes("config: max_download_bytes",
                                       static_cast<int64_t>(config.max_download_bytes()));
  }
  return absl::OkStatus();
}

}  // namespace

bool IsAcceptableRating(float rating) {
  return std::isfinite(rating) && std::fabs(rating) <= static_cast<float>(FEDMF_MAX_ABS_RATING);
}

absl::Status ParseBlob(const uint8_t* data, size_t len, google::protobuf::Message& message) {
  const std::string& type = message.GetDescriptor()->name();
  if ((data == nullptr && len != 0) || len > static_cast<size_t>(INT_MAX)) {
    return absl::InvalidArgumentError(absl::StrCat(len, " bytes are not a ", type));
  }
  const absl::string_view bytes(reinterpret_cast<const char*>(data), len);
  if (absl::Status s = wire::CheckStringFieldsAreUtf8(*message.GetDescriptor(), bytes); !s.ok()) {
    return s;
  }
  if (!message.ParseFromArray(data, static_cast<int>(len))) {
    return absl::InvalidArgumentError(absl::StrCat(len, " bytes are not a ", type));
  }
  return absl::OkStatus();
}

fedmf_status Fail(fedmf_status code, absl::string_view message) {
  last_error.assign(message.data(), message.size());
  return code;
}

fedmf_status FromStatus(const absl::Status& status) {
  if (client::IsCatalogueMismatch(status)) {
    return Fail(FEDMF_ERR_INCOMPATIBLE_MODEL, status.message());
  }
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return FEDMF_OK;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
      return Fail(FEDMF_ERR_INVALID_ARGUMENT, status.message());
    case absl::StatusCode::kFailedPrecondition:
      return Fail(FEDMF_ERR_FAILED_PRECONDITION, status.message());
    case absl::StatusCode::kPermissionDenied:
      return Fail(FEDMF_ERR_PERMISSION_DENIED, status.message());
    case absl::StatusCode::kNotFound:
      return Fail(FEDMF_ERR_NOT_FOUND, status.message());
    default:
      return Fail(FEDMF_ERR_INTERNAL, status.ToString());
  }
}

fedmf_status ReturnBytes(const std::string& bytes, uint8_t** out, size_t* out_len) {
  // malloc(0) may return NULL: allocate at least one byte so success always gives a buffer.
  auto* buffer = static_cast<uint8_t*>(std::malloc(std::max<size_t>(bytes.size(), 1)));
  if (buffer == nullptr) return Fail(FEDMF_ERR_INTERNAL, "out of memory");
  if (!bytes.empty()) std::memcpy(buffer, bytes.data(), bytes.size());
  *out = buffer;
  *out_len = bytes.size();
  return FEDMF_OK;
}

fedmf_status NewParticipant(const v1::ParticipantConfig& config,
                            crypto::Ed25519PrivateKey signing_key, fedmf_participant** out) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return FromStatus(s);
  std::optional<uint64_t> seed;
  if (config.insecure_noise_seeded()) seed = config.insecure_noise_seed();
  absl::StatusOr<std::unique_ptr<client::ParticipantHost>> host =
      client::ParticipantHost::CreateWithoutData({config.participant_id()}, config.num_items(),
                                                 std::move(signing_key), seed);
  if (!host.ok()) return FromStatus(host.status());
  if (!config.budget().empty()) {
    absl::StatusOr<dp::PrivacyBudget> budget = dp::ParseBudgetSpec(config.budget());
    if (!budget.ok()) {
      return Fail(FEDMF_ERR_INVALID_ARGUMENT, absl::StrCat("config: ", budget.status().message()));
    }
    if (absl::Status s = (*host)->SetParticipantBudget(*budget); !s.ok()) return FromStatus(s);
  }
  auto p = std::make_unique<fedmf_participant>();
  p->config = config;
  p->host = std::move(*host);
  if (config.chunk_bytes() != 0) p->host->set_chunk_bytes(config.chunk_bytes());
  if (config.max_download_bytes() != 0) {
    p->host->set_max_download_bytes(config.max_download_bytes());
  }
  *out = p.release();
  return FEDMF_OK;
}

}  // namespace fedmf::capi

absl::Status fedmf_participant::SyncRatings() {
  const fedmf::data::RatingRow row{.indices = absl::MakeConstSpan(items),
                                   .ratings = absl::MakeConstSpan(ratings),
                                   .timestamps = {}};
  return host->SetRatings(config.participant_id(), row);
}

using fedmf::capi::Fail;
using fedmf::capi::FromStatus;
using fedmf::capi::Guard;

extern "C" {

const char* fedmf_version(void) { return FEDMF_VERSION; }
uint32_t fedmf_abi_version(void) { return FEDMF_ABI_VERSION; }
const char* fedmf_last_error(void) { return fedmf::capi::last_error.c_str(); }
void fedmf_free(void* buffer) { std::free(buffer); }

fedmf_status fedmf_participant_create(const uint8_t* config, size_t config_len,
                                      fedmf_participant** out) {
  return Guard([&] {
    if (out == nullptr) return Fail(FEDMF_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = nullptr;
    fedmf::v1::ParticipantConfig parsed;
    if (absl::Status s = fedmf::capi::ParseBlob(config, config_len, parsed); !s.ok()) {
      return Fail(FEDMF_ERR_INVALID_ARGUMENT, absl::StrCat("config: ", s.message()));
    }
    absl::StatusOr<fedmf::crypto::Ed25519PrivateKey> key =
        fedmf::crypto::Ed25519PrivateKey::Generate();
    if (!key.ok()) return FromStatus(key.status());
    return fedmf::capi::NewParticipant(parsed, std::move(*key), out);
  });
}

void fedmf_participant_destroy(fedmf_participant* participant) { delete participant; }

fedmf_status fedmf_participant_set_rating(fedmf_participant* participant, int32_t item,
                                          float rating) {
  return Guard([&] {
    if (participant == nullptr) return Fail(FEDMF_ERR_INVALID_ARGUMENT, "participant is NULL");
    if (item < 0 || item >= participant->config.num_items()) {
      return Fail(FEDMF_ERR_INVALID_ARGUMENT,
                  absl::StrCat("rating ", rating, " of item ", item, ": item outside [0, ",
                               participant->config.num_items(), ")"));
    }
    if (!fedmf::capi::IsAcceptableRating(rating)) {
      return Fail(FEDMF_ERR_INVALID_ARGUMENT,
                  absl::StrCat("rating ", rating, " of item ", item, ": not finite or outside [-",
                               FEDMF_MAX_ABS_RATING, ", ", FEDMF_MAX_ABS_RATING,
                               "] (FEDMF_MAX_ABS_RATING)"));
    }
    std::vector<int32_t>& items = participant->items;
    const auto it = std::lower_bound(items.begin(), items.end(), item);
    const auto k = it - items.begin();
    if (it != items.end() && *it == item) {
      participant->ratings[k] = rating;
    } else {
      items.insert(it, item);
      participant->ratings.insert(participant->ratings.begin() + k, rating);
    }
    return FromStatus(participant->SyncRatings());
  });
}

fedmf_status fedmf_participant_remove_rating(fedmf_participant* participant, int32_t item) {
  return Guard([&] {
    if (participant == nullptr) return Fail(FEDMF_ERR_INVALID_ARGUMENT, "participant is NULL");
    std::vector<int32_t>& items = participant->items;
    const auto it = std::lower_bound(items.begin(), items.end(), item);
    if (it == items.end() || *it != item) {
      return Fail(FEDMF_ERR_NOT_FOUND, absl::StrCat("item ", item, " has no rating"));
    }
    participant->ratings.erase(participant->ratings.begin() + (it - items.begin()));
    items.erase(it);
    return FromStatus(participant->SyncRatings());
  });
}

size_t fedmf_participant_rating_count(const fedmf_participant* participant) {
  return participant == nullptr ? 0 : participant->items.size();
}

}  // extern "C"
