// The mobile library's write-ahead save (client/include/fedmf/fedmf_client.h) with a large model:
// a participant of 45,000 items at rank 14 (a 5 MB DPMF-RP model) that has just answered its task
// (PBM, d = 2^14 values: its SecAgg input is in the state), saved as an app saves after every
// message. Timed alternately inside every iteration against saving the model blob, which is what
// every save cost while the state held the model (format version 3). Counters: vs_model = state
// save time / model save time; state_bytes, model_bytes. Run:
//   build/tests/bench/capi_state_bench
#include <chrono>
#include <cstdint>
#include <string>

#include "benchmark/benchmark.h"
#include "fedmf/fedmf_client.h"
#include "fedmf/v1/mobile.pb.h"
#include "tests/unit/capi/test_server.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr int32_t kItems = 45000;

// Participant 1 of a cohort of 10 after it handled its task (or nullptr on failure).
fedmf_participant* AfterItsTask(capi_server* server) {
  fedmf::v1::ParticipantConfig config;
  config.set_participant_id(1);
  config.set_num_items(kItems);
  const std::string bytes = config.SerializeAsString();
  fedmf_participant* p = nullptr;
  if (fedmf_participant_create(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &p) !=
      FEDMF_OK) {
    return nullptr;
  }
  for (int32_t k = 0; k < 20; ++k) fedmf_participant_set_rating(p, 97 * k, 1.0f + k % 5);
  if (capi_server_start_round(server) != 0) return p;
  uint32_t to = 0;
  const uint8_t* data = nullptr;
  size_t len = 0;
  while (capi_server_next(server, &to, &data, &len)) {
    if (to != 1) continue;
    fedmf_messages* replies = nullptr;
    if (fedmf_participant_handle(p, data, len, &replies) == FEDMF_OK) {
      fedmf_messages_free(replies);
    }
  }
  return p;
}

// Times one call that returns a buffer; its length goes to *len.
template <typename Save>
double Seconds(Save save, const fedmf_participant* p, size_t* len) {
  uint8_t* out = nullptr;
  const Clock::time_point t0 = Clock::now();
  const fedmf_status status = save(p, &out, len);
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  fedmf_free(out);
  return status == FEDMF_OK ? seconds : -1;
}

void BM_WriteAheadSave(benchmark::State& state) {
  const uint32_t ids[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  capi_server* server = capi_server_create_pbm(ids, 10, 6, kItems, 14, 40);
  fedmf_participant* p = server != nullptr ? AfterItsTask(server) : nullptr;
  uint8_t id[FEDMF_MODEL_ID_BYTES];
  if (p == nullptr || fedmf_participant_model_id(p, id) != FEDMF_OK) {
    state.SkipWithError("no participant with a model");
  } else {
    double state_seconds = 0, model_seconds = 0;
    size_t state_bytes = 0, model_bytes = 0;
    for (auto _ : state) {
      const double s = Seconds(fedmf_participant_save, p, &state_bytes);
      const double m = Seconds(fedmf_participant_save_model, p, &model_bytes);
      if (s < 0 || m < 0) {
        state.SkipWithError("a save failed");
        break;
      }
      state_seconds += s;
      model_seconds += m;
    }
    state.counters["vs_model"] = state_seconds / model_seconds;
    state.counters["state_bytes"] = static_cast<double>(state_bytes);
    state.counters["model_bytes"] = static_cast<double>(model_bytes);
  }
  fedmf_participant_destroy(p);
  capi_server_destroy(server);
}
BENCHMARK(BM_WriteAheadSave)->Unit(benchmark::kMillisecond);

}  // namespace
