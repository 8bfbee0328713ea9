#include "tests/unit/server/fake_client.h"

#include <utility>

#include "client/registration.h"
#include "gtest/gtest.h"
#include "wire/envelope.h"

namespace fedmf::server::testing {

FakeClient::FakeClient(DeviceEndpoint& coordinator, std::unique_ptr<client::ParticipantHost> host,
                       uint64_t id, FakeClientOptions options)
    : coordinator_(coordinator), host_(std::move(host)), options_(std::move(options)) {
  connection_ = std::make_shared<Connection>(id, "in-process", [this](const v1::ServerMessage& m) {
    std::lock_guard<std::mutex> lock(mu_);
    if (m.has_chunk()) ++chunks_received_;
    if (m.has_result() && m.result().phase() == wire::kEvaluationPhase)
      evaluation_results_.push_back(m.result().round());
    if (m.has_result() && (m.result().training_done() || m.result().run_done())) {
      ++runs_ended_;
      done_reason_ = m.result().reason();
      final_model_ = m.result().final_model();
    }
    if (m.has_task()) {
      tasks_.push_back(m.task());
      tasks_.back().mutable_plan()->clear_payload();
    }
    inbox_.push_back(m);
    cv_.notify_one();
  });
  v1::RegisterResponse response;
  EXPECT_TRUE(
      coordinator_.Register(client::MakeRegisterRequest(*host_, "", "token"), response, "").ok());
  EXPECT_TRUE(coordinator_.OnStreamOpen(connection_, response.session_token()).ok());
  pump_ = std::thread([this] { Pump(); });
}

FakeClient::~FakeClient() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    cv_.notify_one();
  }
  pump_.join();
  // As the reactor does when its client goes away: the coordinator sends it nothing more.
  if (!stream_closed_) coordinator_.OnStreamClosed(connection_);
}

int64_t FakeClient::chunks_received() {
  std::lock_guard<std::mutex> lock(mu_);
  return chunks_received_;
}

std::vector<int64_t> FakeClient::evaluation_results() {
  std::lock_guard<std::mutex> lock(mu_);
  return evaluation_results_;
}

std::vector<v1::RoundTask> FakeClient::tasks() {
  std::lock_guard<std::mutex> lock(mu_);
  return tasks_;
}

std::string FakeClient::done_reason() {
  std::lock_guard<std::mutex> lock(mu_);
  return done_reason_;
}

int FakeClient::runs_ended() {
  std::lock_guard<std::mutex> lock(mu_);
  return runs_ended_;
}

v1::RoundPlan FakeClient::final_model() {
  std::lock_guard<std::mutex> lock(mu_);
  return final_model_;
}

void FakeClient::Pump() {
  while (true) {
    v1::ServerMessage m;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || !inbox_.empty(); });
      if (stop_) return;
      m = std::move(inbox_.front());
      inbox_.pop_front();
    }
    if (m.has_secagg() && m.secagg().message().has_share_keys()) ++share_key_requests_;
    if (options_.disconnect_on && options_.disconnect_on(m)) {
      coordinator_.OnStreamClosed(connection_);
      stream_closed_ = true;
      return;
    }
    if (options_.ignore && options_.ignore(m)) continue;
    absl::StatusOr<std::vector<v1::ClientMessage>> replies = host_->Handle(m);
    if (!replies.ok()) {
      ++handle_errors_;
      continue;
    }
    for (v1::ClientMessage& reply : *replies) {
      if (options_.tamper) options_.tamper(reply);
      if (reply.has_chunk()) ++chunks_sent_;
      if (!coordinator_.OnClientMessage(connection_, reply).ok()) {
        ++refused_replies_;
        coordinator_.OnStreamClosed(connection_);  // what the reactor does on an error status
        stream_closed_ = true;
        return;
      }
    }
  }
}

data::SyntheticConfig SmallData() {
  data::SyntheticConfig c;
  c.num_users = 40;
  c.num_items = 30;
  c.ratings_per_user = 8;
  c.min_ratings_per_user = 4;
  return c;
}

std::shared_ptr<const data::RatingsDataset> SmallDataset() {
  static const auto* data = new std::shared_ptr<const data::RatingsDataset>(
      std::make_shared<const data::RatingsDataset>(data::GenerateSynthetic(SmallData()).value()));
  return *data;
}

algorithms::dpmf_rp::DpmfRpConfig SmallRun(int64_t rounds) {
  algorithms::dpmf_rp::DpmfRpConfig c;
  c.num_users = 40;
  c.num_items = 30;
  c.rank = 4;
  c.mechanism = algorithms::dpmf_rp::Mechanism::kNone;
  c.item_model = algorithms::dpmf_rp::ItemModel::kFull;
  c.compression = 2;
  c.participation = 0.25;
  c.min_clients = 3;
  c.rounds = rounds;
  return c;
}

std::vector<int32_t> Shard(int i, int n, int32_t num_users) {
  std::vector<int32_t> users;
  for (int32_t u = i; u < num_users; u += n) users.push_back(u);
  return users;
}

}  // namespace fedmf::server::testing
