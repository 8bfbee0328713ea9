// C API: errors, buffers, creating / saving / restoring participants and their local ratings
// (client/include/fedmf/fedmf_client.h).
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "client/capi/capi_internal.h"
#include "common/dp/dp_conversion.h"
#include "crypto/secagg/client_session.h"
#include "openssl/crypto.h"
#include "wire/chunking.h"

namespace fedmf::capi {
namespace {

thread_local std::string last_error;

// ParticipantState.format_version written by fedmf_participant_save; restore also reads 1 (no
// round in progress: the participant drops out of it, as before version 2) and 2 (no local state:
// its algorithms start afresh, as before version 3).
constexpr uint32_t kStateFormatVersion = 3;

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
  return absl::OkStatus();
}

// Wipes the secrets of a state message: the signing key seed and the SecAgg session's.
void WipeState(v1::ParticipantState& state) {
  std::string* seed = state.mutable_signing_key_seed();
  OPENSSL_cleanse(seed->data(), seed->size());
  if (state.has_round() && state.round().has_session()) {
    secagg::WipeClientSessionState(*state.mutable_round()->mutable_session());
  }
}

bool ParseBlob(const uint8_t* data, size_t len, google::protobuf::MessageLite& message) {
  if (data == nullptr && len != 0) return false;
  if (len > static_cast<size_t>(INT_MAX)) return false;
  return message.ParseFromArray(data, static_cast<int>(len));
}

// Restores ratings and progress from `state` into a new handle's `p`.
absl::Status RestoreInto(const v1::ParticipantState& state, fedmf_participant& p) {
  if (state.items_size() != state.ratings_size()) {
    return absl::InvalidArgumentError(absl::StrCat("state: ", state.items_size(), " items but ",
                                                   state.ratings_size(), " ratings"));
  }
  for (int k = 0; k < state.items_size(); ++k) {
    const int32_t item = state.items(k);
    if (item < 0 || item >= p.config.num_items() || (k > 0 && item <= state.items(k - 1)) ||
        !std::isfinite(state.ratings(k))) {
      return absl::InvalidArgumentError(
          absl::StrCat("state: rating ", k, " (item ", item, ", value ", state.ratings(k),
                       ") is out of range, out of order or not finite"));
    }
  }
  p.items.assign(state.items().begin(), state.items().end());
  p.ratings.assign(state.ratings().begin(), state.ratings().end());
  if (absl::Status s = p.SyncRatings(); !s.ok()) return s;
  if (state.rounds_completed() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("state: rounds_completed ", state.rounds_completed(), " < 0"));
  }
  if (state.has_model()) {
    if (absl::Status s =
            p.host->RestoreProgress(state.model(), state.rounds_completed(), state.training_done());
        !s.ok()) {
      return s;
    }
  } else {
    p.registered_done = state.training_done();
  }
  Eigen::VectorXd factor(state.user_factor_size());
  for (int k = 0; k < state.user_factor_size(); ++k) factor[k] = state.user_factor(k);
  client::Participant& participant = *p.host->FindMutable(p.config.participant_id());
  participant.set_user_factor(std::move(factor));
  if (state.has_local_state()) {
    if (state.format_version() < 3) {
      return absl::InvalidArgumentError("state: a local state needs format_version 3");
    }
    if (absl::Status s = participant.RestoreLocalState(state.local_state()); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("state: local_state: ", s.message()));
    }
  }
  if (state.has_round()) {
    if (state.format_version() < 2) {
      return absl::InvalidArgumentError("state: a round in progress needs format_version 2");
    }
    return p.host->RestoreRound(p.config.participant_id(), state.round());
  }
  return absl::OkStatus();
}

}  // namespace

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

const char* fedmf_version(void) { return "0.1.0"; }
uint32_t fedmf_abi_version(void) { return FEDMF_ABI_VERSION; }
const char* fedmf_last_error(void) { return fedmf::capi::last_error.c_str(); }
void fedmf_free(void* buffer) { std::free(buffer); }

fedmf_status fedmf_participant_create(const uint8_t* config, size_t config_len,
                                      fedmf_participant** out) {
  return Guard([&] {
    if (out == nullptr) return Fail(FEDMF_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = nullptr;
    fedmf::v1::ParticipantConfig parsed;
    if (!fedmf::capi::ParseBlob(config, config_len, parsed)) {
      return Fail(FEDMF_ERR_INVALID_ARGUMENT,
                  absl::StrCat("config: ", config_len, " bytes are not a ParticipantConfig"));
    }
    absl::StatusOr<fedmf::crypto::Ed25519PrivateKey> key =
        fedmf::crypto::Ed25519PrivateKey::Generate();
    if (!key.ok()) return FromStatus(key.status());
    return fedmf::capi::NewParticipant(parsed, std::move(*key), out);
  });
}

void fedmf_participant_destroy(fedmf_participant* participant) { delete participant; }

fedmf_status fedmf_participant_save(const fedmf_participant* participant, uint8_t** out,
                                    size_t* out_len) {
  return Guard([&] {
    if (participant == nullptr || out == nullptr || out_len == nullptr) {
      return Fail(FEDMF_ERR_INVALID_ARGUMENT, "participant, out or out_len is NULL");
    }
    const fedmf::client::ParticipantHost& host = *participant->host;
    fedmf::v1::ParticipantState state;
    state.set_format_version(fedmf::capi::kStateFormatVersion);
    *state.mutable_config() = participant->config;
    const fedmf::crypto::SecretBytes& seed = host.signing_key().seed();
    state.set_signing_key_seed(reinterpret_cast<const char*>(seed.data()), seed.size());
    state.mutable_items()->Add(participant->items.begin(), participant->items.end());
    state.mutable_ratings()->Add(participant->ratings.begin(), participant->ratings.end());
    if (host.contributor() != nullptr) {
      *state.mutable_model() = host.model();
    }
    const fedmf::client::Participant& own = *host.Find(participant->config.participant_id());
    const Eigen::VectorXd& factor = own.user_factor();
    state.mutable_user_factor()->Add(factor.data(), factor.data() + factor.size());
    *state.mutable_local_state() = own.ExportLocalState();
    state.set_rounds_completed(host.rounds_completed());
    state.set_training_done(host.training_done() || participant->registered_done);
    absl::StatusOr<std::optional<fedmf::v1::SavedRound>> round =
        host.SaveRound(participant->config.participant_id());
    if (!round.ok()) return FromStatus(round.status());
    if (round->has_value()) *state.mutable_round() = std::move(**round);
    std::string bytes = state.SerializeAsString();
    const fedmf_status status = fedmf::capi::ReturnBytes(bytes, out, out_len);
    OPENSSL_cleanse(bytes.data(), bytes.size());
    fedmf::capi::WipeState(state);
    return status;
  });
}

fedmf_status fedmf_participant_restore(const uint8_t* state, size_t state_len,
                                       fedmf_participant** out) {
  return Guard([&] {
    if (out == nullptr) return Fail(FEDMF_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = nullptr;
    fedmf::v1::ParticipantState parsed;
    if (!fedmf::capi::ParseBlob(state, state_len, parsed)) {
      return Fail(FEDMF_ERR_INVALID_ARGUMENT,
                  absl::StrCat("state: ", state_len, " bytes are not a ParticipantState"));
    }
    // Whatever happens next, the parsed secrets are wiped when this returns.
    const absl::Cleanup wipe = [&parsed] { fedmf::capi::WipeState(parsed); };
    if (parsed.format_version() < 1 || parsed.format_version() > fedmf::capi::kStateFormatVersion) {
      return Fail(FEDMF_ERR_INVALID_ARGUMENT,
                  absl::StrCat("state: format_version ", parsed.format_version(),
                               ", expected 1 to ", fedmf::capi::kStateFormatVersion));
    }
    const std::string& seed = parsed.signing_key_seed();
    absl::StatusOr<fedmf::crypto::Ed25519PrivateKey> key =
        fedmf::crypto::Ed25519PrivateKey::FromSeed(
            absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(seed.data()), seed.size()));
    if (!key.ok()) {
      return Fail(FEDMF_ERR_INVALID_ARGUMENT,
                  absl::StrCat("state: signing key: ", key.status().message()));
    }
    fedmf_participant* p = nullptr;
    if (fedmf_status s = fedmf::capi::NewParticipant(parsed.config(), std::move(*key), &p);
        s != FEDMF_OK) {
      return s;
    }
    std::unique_ptr<fedmf_participant> owned(p);
    if (absl::Status s = fedmf::capi::RestoreInto(parsed, *owned); !s.ok()) return FromStatus(s);
    *out = owned.release();
    return FEDMF_OK;
  });
}

fedmf_status fedmf_participant_set_rating(fedmf_participant* participant, int32_t item,
                                          float rating) {
  return Guard([&] {
    if (participant == nullptr) return Fail(FEDMF_ERR_INVALID_ARGUMENT, "participant is NULL");
    if (item < 0 || item >= participant->config.num_items() || !std::isfinite(rating)) {
      return Fail(FEDMF_ERR_INVALID_ARGUMENT,
                  absl::StrCat("rating ", rating, " of item ", item, ": item outside [0, ",
                               participant->config.num_items(), ") or rating not finite"));
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
