// C API: saving and restoring participants (client/include/fedmf/fedmf_client.h). The state
// (fedmf.v1.ParticipantState) is saved after every message during a round, so it leaves the
// model out: the model goes to a SavedModel blob of its own, saved when it changes (once per
// round) and named in the state by its SHA-256, its id.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "client/capi/capi_internal.h"
#include "crypto/secagg/client_session.h"
#include "crypto/secagg/derivation.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "openssl/crypto.h"

namespace fedmf::capi {
namespace {

// ParticipantState.format_version written by fedmf_participant_save; restore also reads 1 (no
// round in progress: the participant drops out of it, as before version 2), 2 (no local state:
// its algorithms start afresh, as before version 3) and 3 (the model inside the state).
constexpr uint32_t kStateFormatVersion = 4;
constexpr uint32_t kSavedModelFormatVersion = 1;
static_assert(FEDMF_MODEL_ID_BYTES == 32, "a model id is a SHA-256");

using ModelId = std::array<uint8_t, FEDMF_MODEL_ID_BYTES>;

// Wipes the secrets of a state message: the signing key seed and the SecAgg session's.
void WipeState(v1::ParticipantState& state) {
  std::string* seed = state.mutable_signing_key_seed();
  OPENSSL_cleanse(seed->data(), seed->size());
  if (state.has_round() && state.round().has_session()) {
    secagg::WipeClientSessionState(*state.mutable_round()->mutable_session());
  }
}

// The SavedModel blob of `p`'s model; deterministic, so its id is reproducible within a build.
std::string ModelBlob(const fedmf_participant& p) {
  v1::SavedModel saved;
  saved.set_format_version(kSavedModelFormatVersion);
  *saved.mutable_plan() = p.host->model();
  if (p.host->published_model().version() > 0) *saved.mutable_published() = p.host->published_model();
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    saved.SerializeToCodedStream(&coded);
  }
  return bytes;
}

// The id of `p`'s model, FailedPrecondition without one. Serializes and hashes the model only
// when it changed since the last call.
absl::StatusOr<ModelId> CurrentModelId(const fedmf_participant& p) {
  const client::ParticipantHost& host = *p.host;
  if (host.contributor() == nullptr) {
    return absl::FailedPreconditionError("no model yet: none arrived and none was restored");
  }
  if (!p.model_id.has_value() || p.model_id->model_version != host.model_version()) {
    absl::StatusOr<ModelId> id = secagg::Sha256Of(ModelBlob(p));
    if (!id.ok()) return id.status();
    p.model_id = fedmf_participant::ModelId{.model_version = host.model_version(), .sha256 = *id};
  }
  return p.model_id->sha256;
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
        !IsAcceptableRating(state.ratings(k))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "state: rating ", k, " (item ", item, ", value ", state.ratings(k),
          ") is out of range, out of order, not finite or above FEDMF_MAX_ABS_RATING"));
    }
  }
  p.items.assign(state.items().begin(), state.items().end());
  p.ratings.assign(state.ratings().begin(), state.ratings().end());
  if (absl::Status s = p.SyncRatings(); !s.ok()) return s;
  if (state.rounds_completed() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("state: rounds_completed ", state.rounds_completed(), " < 0"));
  }
  if (!state.model_id().empty() && state.format_version() < 4) {
    return absl::InvalidArgumentError("state: a model_id needs format_version 4");
  }
  // Checked with or without the blob: a state that re-saves a malformed id names no blob ever.
  if (!state.model_id().empty() && state.model_id().size() != FEDMF_MODEL_ID_BYTES) {
    return absl::InvalidArgumentError(absl::StrCat("state: model_id has ", state.model_id().size(),
                                                   " bytes, expected ", FEDMF_MODEL_ID_BYTES));
  }
  if (state.user_factor_size() > FEDMF_MAX_USER_FACTOR_LENGTH) {
    return absl::InvalidArgumentError(
        absl::StrCat("state: user_factor has ", state.user_factor_size(), " values, at most ",
                     FEDMF_MAX_USER_FACTOR_LENGTH, " (FEDMF_MAX_USER_FACTOR_LENGTH)"));
  }
  for (int k = 0; k < state.user_factor_size(); ++k) {
    if (!std::isfinite(state.user_factor(k))) {
      return absl::InvalidArgumentError(
          absl::StrCat("state: user_factor[", k, "] is ", state.user_factor(k), ", not finite"));
    }
  }
  if (state.has_model()) {
    if (state.format_version() > 3) {
      return absl::InvalidArgumentError(
          "state: a model inside the state needs format_version 1 to 3 (version 4 names it)");
    }
    if (absl::Status s = p.host->RestoreModel(state.model()); !s.ok()) return s;
  }
  p.host->RestoreProgress(state.rounds_completed(), state.training_done());
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

// Makes `model` (a SavedModel blob) `p`'s model: it must be the one `state` names.
absl::Status RestoreModelBlob(const v1::ParticipantState& state, absl::string_view model,
                              fedmf_participant& p) {
  if (state.model_id().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("model: the state (format_version ", state.format_version(),
                     ") names no model blob; restore it without one (fedmf_participant_restore)"));
  }
  if (state.model_id().size() != FEDMF_MODEL_ID_BYTES) {
    return absl::InvalidArgumentError(absl::StrCat("state: model_id has ", state.model_id().size(),
                                                   " bytes, expected ", FEDMF_MODEL_ID_BYTES));
  }
  absl::StatusOr<ModelId> id = secagg::Sha256Of(model);
  if (!id.ok()) return id.status();
  const absl::string_view id_bytes(reinterpret_cast<const char*>(id->data()), id->size());
  if (id_bytes != state.model_id()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "model: ", model.size(), " bytes with SHA-256 ", absl::BytesToHexString(id_bytes),
        ", but the state names model ", absl::BytesToHexString(state.model_id())));
  }
  v1::SavedModel saved;
  if (absl::Status s =
          ParseBlob(reinterpret_cast<const uint8_t*>(model.data()), model.size(), saved);
      !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("model: ", s.message()));
  }
  if (saved.format_version() != kSavedModelFormatVersion) {
    return absl::InvalidArgumentError(absl::StrCat("model: format_version ", saved.format_version(),
                                                   ", expected ", kSavedModelFormatVersion));
  }
  if (absl::Status s = p.host->RestoreModel(saved.plan(), saved.published()); !s.ok()) return s;
  // The blob's id stays the model's: the app need not save the same model again.
  p.model_id = fedmf_participant::ModelId{.model_version = p.host->model_version(), .sha256 = *id};
  return absl::OkStatus();
}

// fedmf_participant_restore_with_model's body; `model` is empty for none.
fedmf_status Restore(const uint8_t* state, size_t state_len, const uint8_t* model, size_t model_len,
                     fedmf_participant** out) {
  if (out == nullptr) return Fail(FEDMF_ERR_INVALID_ARGUMENT, "out is NULL");
  *out = nullptr;
  if (model == nullptr && model_len != 0) {
    return Fail(FEDMF_ERR_INVALID_ARGUMENT, "model is NULL with a nonzero length");
  }
  v1::ParticipantState parsed;
  if (absl::Status s = ParseBlob(state, state_len, parsed); !s.ok()) {
    return Fail(FEDMF_ERR_INVALID_ARGUMENT, absl::StrCat("state: ", s.message()));
  }
  // Whatever happens next, the parsed secrets are wiped when this returns.
  const absl::Cleanup wipe = [&parsed] { WipeState(parsed); };
  if (parsed.format_version() < 1 || parsed.format_version() > kStateFormatVersion) {
    return Fail(FEDMF_ERR_INVALID_ARGUMENT,
                absl::StrCat("state: format_version ", parsed.format_version(), ", expected 1 to ",
                             kStateFormatVersion));
  }
  const std::string& seed = parsed.signing_key_seed();
  absl::StatusOr<crypto::Ed25519PrivateKey> key = crypto::Ed25519PrivateKey::FromSeed(
      absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(seed.data()), seed.size()));
  if (!key.ok()) {
    return Fail(FEDMF_ERR_INVALID_ARGUMENT,
                absl::StrCat("state: signing key: ", key.status().message()));
  }
  fedmf_participant* p = nullptr;
  if (fedmf_status s = NewParticipant(parsed.config(), std::move(*key), &p); s != FEDMF_OK) {
    return s;
  }
  std::unique_ptr<fedmf_participant> owned(p);
  if (absl::Status s = RestoreInto(parsed, *owned); !s.ok()) return FromStatus(s);
  if (model_len != 0) {
    const absl::string_view blob(reinterpret_cast<const char*>(model), model_len);
    if (absl::Status s = RestoreModelBlob(parsed, blob, *owned); !s.ok()) return FromStatus(s);
  }
  *out = owned.release();
  return FEDMF_OK;
}

}  // namespace
}  // namespace fedmf::capi

using fedmf::capi::Fail;
using fedmf::capi::FromStatus;
using fedmf::capi::Guard;

extern "C" {

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
      absl::StatusOr<fedmf::capi::ModelId> id = fedmf::capi::CurrentModelId(*participant);
      if (!id.ok()) return FromStatus(id.status());
      state.set_model_id(id->data(), id->size());
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

fedmf_status fedmf_participant_model_id(const fedmf_participant* participant,
                                        uint8_t id[FEDMF_MODEL_ID_BYTES]) {
  return Guard([&] {
    if (participant == nullptr || id == nullptr) {
      return Fail(FEDMF_ERR_INVALID_ARGUMENT, "participant or id is NULL");
    }
    absl::StatusOr<fedmf::capi::ModelId> current = fedmf::capi::CurrentModelId(*participant);
    if (!current.ok()) return FromStatus(current.status());
    std::memcpy(id, current->data(), current->size());
    return FEDMF_OK;
  });
}

fedmf_status fedmf_participant_save_model(const fedmf_participant* participant, uint8_t** out,
                                          size_t* out_len) {
  return Guard([&] {
    if (participant == nullptr || out == nullptr || out_len == nullptr) {
      return Fail(FEDMF_ERR_INVALID_ARGUMENT, "participant, out or out_len is NULL");
    }
    if (participant->host->contributor() == nullptr) {
      return Fail(FEDMF_ERR_FAILED_PRECONDITION,
                  "no model yet: none arrived and none was restored");
    }
    return fedmf::capi::ReturnBytes(fedmf::capi::ModelBlob(*participant), out, out_len);
  });
}

fedmf_status fedmf_state_model_id(const uint8_t* state, size_t state_len,
                                  uint8_t id[FEDMF_MODEL_ID_BYTES]) {
  return Guard([&] {
    if (id == nullptr) return Fail(FEDMF_ERR_INVALID_ARGUMENT, "id is NULL");
    fedmf::v1::ParticipantState parsed;
    if (absl::Status s = fedmf::capi::ParseBlob(state, state_len, parsed); !s.ok()) {
      return Fail(FEDMF_ERR_INVALID_ARGUMENT, absl::StrCat("state: ", s.message()));
    }
    const absl::Cleanup wipe = [&parsed] { fedmf::capi::WipeState(parsed); };
    // Empty bytes parse as format_version 0: not a state, so not "names no model" either.
    if (parsed.format_version() < 1 ||
        parsed.format_version() > fedmf::capi::kStateFormatVersion) {
      return Fail(FEDMF_ERR_INVALID_ARGUMENT,
                  absl::StrCat("state: format_version ", parsed.format_version(),
                               ", expected 1 to ", fedmf::capi::kStateFormatVersion));
    }
    if (parsed.model_id().empty()) {
      return Fail(FEDMF_ERR_NOT_FOUND,
                  absl::StrCat("the state (format_version ", parsed.format_version(),
                               ") names no model blob"));
    }
    if (parsed.model_id().size() != FEDMF_MODEL_ID_BYTES) {
      return Fail(FEDMF_ERR_INVALID_ARGUMENT,
                  absl::StrCat("state: model_id has ", parsed.model_id().size(),
                               " bytes, expected ", FEDMF_MODEL_ID_BYTES));
    }
    std::memcpy(id, parsed.model_id().data(), FEDMF_MODEL_ID_BYTES);
    return FEDMF_OK;
  });
}

fedmf_status fedmf_participant_restore(const uint8_t* state, size_t state_len,
                                       fedmf_participant** out) {
  return Guard([&] { return fedmf::capi::Restore(state, state_len, nullptr, 0, out); });
}

fedmf_status fedmf_participant_restore_with_model(const uint8_t* state, size_t state_len,
                                                  const uint8_t* model, size_t model_len,
                                                  fedmf_participant** out) {
  return Guard([&] { return fedmf::capi::Restore(state, state_len, model, model_len, out); });
}

}  // extern "C"
