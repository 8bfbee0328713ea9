// Test support: a client process inside the test, driving a Coordinator (or a front: any
// DeviceEndpoint) through an in-process Connection (a sink queue) and a pump thread that feeds its
// ParticipantHost and hands the replies to OnClientMessage, as the gRPC reactor does. Hooks let a
// test silence or tamper with the client; counters report what it saw.
#ifndef FEDMF_TESTS_UNIT_SERVER_FAKE_CLIENT_H_
#define FEDMF_TESTS_UNIT_SERVER_FAKE_CLIENT_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "client/participant_host.h"
#include "common/algorithms/dpmf_rp/updater.h"
#include "common/data/ratings_dataset.h"
#include "common/data/synthetic.h"
#include "server/device_endpoint.h"

namespace fedmf::server::testing {

struct FakeClientOptions {
  // When set and true for a message, the client ignores it (a silent participant).
  std::function<bool(const v1::ServerMessage&)> ignore;
  // When set, rewrites each reply before it is sent (a misbehaving participant).
  std::function<void(v1::ClientMessage&)> tamper;
  // When set and true for a message, the client closes its stream instead (a lost client).
  std::function<bool(const v1::ServerMessage&)> disconnect_on;
};

class FakeClient {
 public:
  // Registers `host` with enrollment token "token" and opens its stream as connection `id`.
  FakeClient(DeviceEndpoint& coordinator, std::unique_ptr<client::ParticipantHost> host,
             uint64_t id, FakeClientOptions options = {});
  ~FakeClient();

  // ServerMessages carrying a ShareKeys request, chunk messages received and sent, rounds of
  // the evaluation results received.
  int share_key_requests() const { return share_key_requests_.load(); }
  int64_t chunks_received();
  int64_t chunks_sent() const { return chunks_sent_.load(); }
  std::vector<int64_t> evaluation_results();
  // The training tasks received (without their plans' payloads), and the reason of the last result
  // that ended training or a run (empty until one came), and how many came.
  std::vector<v1::RoundTask> tasks();
  std::string done_reason();
  int runs_ended();
  // The final model of that result, if it came whole (empty otherwise).
  v1::RoundPlan final_model();
  // Messages the host could not handle, and replies the coordinator refused (which ends the
  // stream, as the gRPC reactor does).
  int handle_errors() const { return handle_errors_.load(); }
  int refused_replies() const { return refused_replies_.load(); }

 private:
  void Pump();

  DeviceEndpoint& coordinator_;
  std::unique_ptr<client::ParticipantHost> host_;
  const FakeClientOptions options_;
  std::shared_ptr<Connection> connection_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<v1::ServerMessage> inbox_;
  std::vector<int64_t> evaluation_results_;
  std::vector<v1::RoundTask> tasks_;
  std::string done_reason_;
  v1::RoundPlan final_model_;
  int64_t chunks_received_ = 0;
  int runs_ended_ = 0;
  bool stop_ = false;
  bool stream_closed_ = false;  // by the pump thread, read after it ended
  std::atomic<int> share_key_requests_{0};
  std::atomic<int64_t> chunks_sent_{0};
  std::atomic<int> handle_errors_{0};
  std::atomic<int> refused_replies_{0};
  std::thread pump_;
};

// The tests' small federation: 40 synthetic users, 30 items, 8 ratings each (at least 4).
data::SyntheticConfig SmallData();
// SmallData's dataset, generated once and shared (read only) by every caller.
std::shared_ptr<const data::RatingsDataset> SmallDataset();
// DPMF-RP on SmallData's shape: rank 4, no noise, full item model, compression 2, cohort 10
// (participation 0.25), n_min 3, SecAgg, `rounds` rounds.
algorithms::dpmf_rp::DpmfRpConfig SmallRun(int64_t rounds);

// The hosted users of process i of n: every user u < num_users with u % n == i.
std::vector<int32_t> Shard(int i, int n, int32_t num_users);

}  // namespace fedmf::server::testing

#endif  // FEDMF_TESTS_UNIT_SERVER_FAKE_CLIENT_H_
