// libFuzzer over the mobile C API's entry points (client/include/fedmf/fedmf_client.h): the bytes
// an app or a server can hand the library. Byte 0 picks the target:
//   0: a config blob (fedmf_participant_create) and the same bytes as a state (restore, also
//      with themselves as the model blob) and the model id it names;
//   1: a genuine saved state (with ratings and a model, or mid-round with a SecAgg session) XORed
//      with the input, restored with its genuine model blob, used and fed the input as a server
//      message;
//   2: server messages (2-byte length prefixed) fed to participant 1 of a live three-user SecAgg
//      round (tests/unit/capi/test_server.h) between the genuine stages, raw or XORed into the
//      genuine message addressed to it;
//   3: a program of API calls (ratings, queries, save/restore, registration) on one participant.
// Errors are expected; crashes, leaks, UB and out-of-bounds accesses are not.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fedmf/fedmf_client.h"
#include "tests/unit/capi/test_server.h"

namespace {

// ParticipantConfig {participant_id 1, num_items 30} (proto/fedmf/v1/mobile.proto).
constexpr uint8_t kConfig[] = {0x08, 0x01, 0x10, 0x1e};

fedmf_participant* NewParticipant(uint32_t id) {
  const uint8_t config[] = {0x08, static_cast<uint8_t>(id), 0x10, 0x1e};
  fedmf_participant* p = nullptr;
  if (fedmf_participant_create(config, sizeof config, &p) != FEDMF_OK) __builtin_trap();
  for (int32_t k = 0; k < 6; ++k) {
    fedmf_participant_set_rating(p, (static_cast<int32_t>(id) * 5 + 4 * k) % 30, 1.0f + k % 5);
  }
  return p;
}

// Delivers every queued server message to its participant and the replies to the server.
void Pump(capi_server* server, fedmf_participant* const* users) {
  uint32_t to = 0;
  const uint8_t* data = nullptr;
  size_t len = 0;
  while (capi_server_next(server, &to, &data, &len)) {
    fedmf_messages* replies = nullptr;
    if (fedmf_participant_handle(users[to - 1], data, len, &replies) != FEDMF_OK) continue;
    for (size_t r = 0; r < fedmf_messages_count(replies); ++r) {
      const uint8_t* reply = nullptr;
      size_t reply_len = 0;
      if (fedmf_messages_get(replies, r, &reply, &reply_len) == FEDMF_OK) {
        capi_server_deliver(server, reply, reply_len);
      }
    }
    fedmf_messages_free(replies);
  }
}

// Exercises every query of a (possibly restored) participant.
void Use(fedmf_participant* p) {
  int32_t items[8];
  double scores[8];
  size_t count = 0;
  fedmf_participant_recommend(p, 8, items, scores, 8, &count);
  double rating = 0;
  fedmf_participant_predict(p, 3, &rating);
  double factor[16];
  fedmf_participant_user_factor(p, factor, 16, &count);
  uint8_t* out = nullptr;
  size_t len = 0;
  if (fedmf_participant_save(p, &out, &len) == FEDMF_OK) fedmf_free(out);
  if (fedmf_participant_save_model(p, &out, &len) == FEDMF_OK) fedmf_free(out);
  uint8_t id[FEDMF_MODEL_ID_BYTES];
  fedmf_participant_model_id(p, id);
}

// Saved states of participant 1 and their model blobs, made once: [0] after a completed round
// (ratings and a model);
// [1..4] in the middle of a signed round (with the consistency check), saved right after it
// answered stage 0..3 (AdvertiseKeys, ShareKeys, MaskedInput, ConsistencyCheck), so the SecAgg
// session's fields (keys, input, neighbors, shares, survivors, directory) are reachable.
constexpr int kGenuineStates = 5;

struct Saved {
  std::string state;
  std::string model;
};

const Saved& GenuineState(int which) {
  static const std::vector<Saved>* states = [] {
    auto* out = new std::vector<Saved>(kGenuineStates);
    for (int k = 0; k < kGenuineStates; ++k) {
      const uint32_t ids[] = {1, 2, 3};
      const bool mid_round = k > 0;
      capi_server* server = capi_server_create(ids, 3, 2, mid_round ? 1 : 0);
      fedmf_participant* users[3] = {NewParticipant(1), NewParticipant(2), NewParticipant(3)};
      for (int u = 0; mid_round && u < 3; ++u) {
        uint8_t* request = nullptr;
        size_t len = 0;
        if (fedmf_participant_register_request(users[u], "fuzz", nullptr, &request, &len) !=
                FEDMF_OK ||
            capi_server_register(server, request, len) != 0) {
          __builtin_trap();
        }
        fedmf_free(request);
      }
      capi_server_start_round(server);
      for (int stage = 0; stage < 8; ++stage) {
        Pump(server, users);
        if (mid_round && stage == k - 1) break;
        if (capi_server_close_stage(server) != CAPI_ROUND_RUNNING) break;
      }
      if (!mid_round) Pump(server, users);
      uint8_t* state = nullptr;
      size_t len = 0;
      if (fedmf_participant_save(users[0], &state, &len) != FEDMF_OK) __builtin_trap();
      (*out)[k].state.assign(reinterpret_cast<char*>(state), len);
      fedmf_free(state);
      if (fedmf_participant_save_model(users[0], &state, &len) != FEDMF_OK) __builtin_trap();
      (*out)[k].model.assign(reinterpret_cast<char*>(state), len);
      fedmf_free(state);
      for (fedmf_participant* u : users) fedmf_participant_destroy(u);
      capi_server_destroy(server);
    }
    return out;
  }();
  return (*states)[static_cast<size_t>(which)];
}

void FuzzBlobs(const uint8_t* data, size_t size) {
  fedmf_participant* p = nullptr;
  if (fedmf_participant_create(data, size, &p) == FEDMF_OK) Use(p);
  fedmf_participant_destroy(p);
  p = nullptr;
  if (fedmf_participant_restore(data, size, &p) == FEDMF_OK) Use(p);
  fedmf_participant_destroy(p);
  p = nullptr;
  if (fedmf_participant_restore_with_model(data, size, data, size, &p) == FEDMF_OK) Use(p);
  fedmf_participant_destroy(p);
  uint8_t id[FEDMF_MODEL_ID_BYTES];
  fedmf_state_model_id(data, size, id);
}

void FuzzState(const uint8_t* data, size_t size) {
  const Saved& genuine = GenuineState(static_cast<int>(size % kGenuineStates));
  std::string state = genuine.state;
  for (size_t i = 0; i < size; ++i) state[i % state.size()] ^= static_cast<char>(data[i]);
  // Also a truncation, from the input's length.
  if (size % 7 == 3) state.resize(state.size() - size % state.size());
  fedmf_participant* p = nullptr;
  if (fedmf_participant_restore_with_model(reinterpret_cast<const uint8_t*>(state.data()),
                                           state.size(),
                                           reinterpret_cast<const uint8_t*>(genuine.model.data()),
                                           genuine.model.size(), &p) == FEDMF_OK) {
    Use(p);
    fedmf_messages* replies = nullptr;
    if (fedmf_participant_handle(p, data, size, &replies) == FEDMF_OK) {
      fedmf_messages_free(replies);
    }
  }
  fedmf_participant_destroy(p);
}

void FuzzRound(const uint8_t* data, size_t size) {
  const uint32_t ids[] = {1, 2, 3};
  capi_server* server = capi_server_create(ids, 3, 2, data[0] & 1);
  fedmf_participant* users[3] = {NewParticipant(1), NewParticipant(2), NewParticipant(3)};
  for (fedmf_participant* u : users) {
    uint8_t* request = nullptr;
    size_t len = 0;
    if (fedmf_participant_register_request(u, "fuzz", nullptr, &request, &len) == FEDMF_OK) {
      capi_server_register(server, request, len);
      fedmf_free(request);
    }
  }
  capi_server_start_round(server);
  size_t pos = 1;
  for (int stage = 0; stage < 8; ++stage) {
    // The fuzz messages of this stage go to participant 1 before the genuine ones.
    if (pos + 2 <= size) {
      const size_t len = std::min<size_t>(size - pos - 2, data[pos] | (data[pos + 1] << 8));
      fedmf_messages* replies = nullptr;
      if (fedmf_participant_handle(users[0], data + pos + 2, len, &replies) == FEDMF_OK) {
        for (size_t r = 0; r < fedmf_messages_count(replies); ++r) {
          const uint8_t* reply = nullptr;
          size_t reply_len = 0;
          fedmf_messages_get(replies, r, &reply, &reply_len);
          capi_server_deliver(server, reply, reply_len);
        }
        fedmf_messages_free(replies);
      }
      pos += 2 + len;
    }
    Pump(server, users);
    if (capi_server_close_stage(server) != CAPI_ROUND_RUNNING) break;
  }
  Pump(server, users);
  Use(users[0]);
  for (fedmf_participant* u : users) fedmf_participant_destroy(u);
  capi_server_destroy(server);
}

void FuzzCalls(const uint8_t* data, size_t size) {
  fedmf_participant* p = nullptr;
  if (fedmf_participant_create(kConfig, sizeof kConfig, &p) != FEDMF_OK) return;
  for (size_t i = 0; i + 3 <= size; i += 3) {
    const int32_t item = static_cast<int8_t>(data[i + 1]);
    switch (data[i] % 8) {
      case 0:
        fedmf_participant_set_rating(p, item, static_cast<float>(data[i + 2]) / 32.0f);
        break;
      case 1:
        fedmf_participant_remove_rating(p, item);
        break;
      case 2: {
        int32_t items[4];
        double scores[4];
        size_t count = 0;
        fedmf_participant_recommend(p, item, items, scores, data[i + 2] % 5, &count);
        break;
      }
      case 3: {
        double rating = 0;
        fedmf_participant_predict(p, item, &rating);
        break;
      }
      case 4: {
        uint8_t* out = nullptr;
        size_t len = 0;
        if (fedmf_participant_save(p, &out, &len) == FEDMF_OK) {
          fedmf_participant* q = nullptr;
          if (fedmf_participant_restore(out, len, &q) == FEDMF_OK) {
            fedmf_participant_destroy(p);
            p = q;
          }
          fedmf_free(out);
        }
        break;
      }
      case 5: {
        uint8_t* out = nullptr;
        size_t len = 0;
        const size_t token = std::min<size_t>(data[i + 2], size - i);
        const std::string text(reinterpret_cast<const char*>(data + i), token);
        if (fedmf_participant_register_request(p, text.c_str(), text.c_str(), &out, &len) ==
            FEDMF_OK) {
          fedmf_free(out);
        }
        if (fedmf_participant_open_stream(p, data + i, token, &out, &len) == FEDMF_OK) {
          fedmf_free(out);
        }
        break;
      }
      case 6: {
        const size_t len = std::min<size_t>(data[i + 2], size - i);
        fedmf_messages* replies = nullptr;
        if (fedmf_participant_handle(p, data + i, len, &replies) == FEDMF_OK) {
          fedmf_messages_free(replies);
        }
        break;
      }
      default:
        Use(p);
    }
  }
  fedmf_participant_destroy(p);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t target = data[0] % 4;
  ++data;
  --size;
  switch (target) {
    case 0:
      FuzzBlobs(data, size);
      break;
    case 1:
      FuzzState(data, size);
      break;
    case 2:
      if (size > 0) FuzzRound(data, size);
      break;
    default:
      FuzzCalls(data, size);
  }
  return 0;
}
