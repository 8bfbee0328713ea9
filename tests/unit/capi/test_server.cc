// The in-process coordinator side of tests/unit/capi/test_server.h.
#include "tests/unit/capi/test_server.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "crypto/secagg/server_session.h"
#include "tests/unit/client/test_round.h"
#include "wire/chunking.h"
#include "wire/envelope.h"
#include "wire/limits.h"
#include "wire/secagg_params.h"

struct capi_server {
  std::vector<uint32_t> ids;
  int threshold = 0;
  bool signatures = false;
  std::unique_ptr<fedmf::algorithms::dpmf_rp::DpmfRpUpdater> updater;
  google::protobuf::RepeatedPtrField<fedmf::v1::SigningKeys> keys;  // as registered
  std::shared_ptr<fedmf::secagg::SigningKeyDirectory> directory;    // of the round, signed
  fedmf::v1::RoundPlan plan;
  std::unique_ptr<fedmf::secagg::ServerSession> session;
  fedmf::wire::Reassembler<fedmf::v1::ClientMessage> inbound;
  std::deque<std::pair<uint32_t, std::string>> outbox;
  std::string current;  // the message capi_server_next returned last
  int contributors = 0;
  std::vector<uint64_t> last_sum;

  void Queue(uint32_t to, const fedmf::v1::ServerMessage& m) {
    outbox.emplace_back(to, m.SerializeAsString());
  }
  void Result(bool applied) {
    fedmf::v1::ServerMessage m;
    m.mutable_result()->set_round(plan.round());
    m.mutable_result()->set_applied(applied);
    m.mutable_result()->set_rounds_completed(updater->round());
    m.mutable_result()->set_contributors(contributors);
    for (uint32_t id : ids) Queue(id, m);
    session.reset();
  }
};

namespace {

capi_server* NewServer(const uint32_t* ids, size_t n, int threshold, int signatures,
                       const fedmf::algorithms::dpmf_rp::DpmfRpConfig& config) {
  if (ids == nullptr || n < 2 || n > 10 || threshold < 2 || threshold > static_cast<int>(n)) {
    return nullptr;
  }
  auto updater = fedmf::algorithms::dpmf_rp::DpmfRpUpdater::Create(config);
  if (!updater.ok()) return nullptr;
  auto server = std::make_unique<capi_server>();
  server->ids.assign(ids, ids + n);
  server->threshold = threshold;
  server->signatures = signatures != 0;
  server->updater = std::move(*updater);
  return server.release();
}

}  // namespace

extern "C" {

capi_server* capi_server_create(const uint32_t* ids, size_t n, int threshold, int signatures) {
  return NewServer(ids, n, threshold, signatures, fedmf::client::test_util::SmallConfig());
}

capi_server* capi_server_create_pbm(const uint32_t* ids, size_t n, int threshold, int32_t num_items,
                                    int rank, double compression) {
  fedmf::algorithms::dpmf_rp::DpmfRpConfig config =
      fedmf::client::test_util::SmallConfig(true, fedmf::algorithms::dpmf_rp::Mechanism::kPbm);
  config.num_items = num_items;
  config.rank = rank;
  config.compression = compression;
  config.pbm_geometry = fedmf::algorithms::dpmf_rp::PbmGeometry::kRotatedL2;
  return NewServer(ids, n, threshold, 0, config);
}

capi_server* capi_server_create_dpmf(const uint32_t* ids, size_t n, int threshold, int signatures,
                                     int32_t num_items, int rank, double compression, int mechanism,
                                     int item_model) {
  using fedmf::algorithms::dpmf_rp::ItemModel;
  using fedmf::algorithms::dpmf_rp::Mechanism;
  constexpr Mechanism kMechanisms[] = {Mechanism::kPbm, Mechanism::kGaussian, Mechanism::kNone};
  if (mechanism < CAPI_PBM || mechanism > CAPI_NONE ||
      (item_model != CAPI_COMPRESSED && item_model != CAPI_FULL)) {
    return nullptr;
  }
  fedmf::algorithms::dpmf_rp::DpmfRpConfig config =
      fedmf::client::test_util::SmallConfig(true, kMechanisms[mechanism]);
  config.num_items = num_items;
  config.rank = rank;
  config.compression = compression;
  config.item_model = item_model == CAPI_FULL ? ItemModel::kFull : ItemModel::kCompressed;
  config.pbm_geometry = fedmf::algorithms::dpmf_rp::PbmGeometry::kRotatedL2;
  return NewServer(ids, n, threshold, signatures, config);
}

void capi_server_destroy(capi_server* server) { delete server; }

uint64_t capi_server_plan_length(const capi_server* server) { return server->plan.length(); }
int capi_server_plan_bits(const capi_server* server) { return server->plan.bits(); }

int capi_server_register(capi_server* server, const uint8_t* request, size_t len) {
  fedmf::v1::RegisterRequest parsed;
  if (!parsed.ParseFromArray(request, static_cast<int>(len)) ||
      parsed.protocol_version() != fedmf::wire::kProtocolVersion ||
      parsed.signing_public_key().size() != 32) {
    return 1;
  }
  fedmf::v1::SigningKeys* entry = server->keys.Add();
  entry->set_public_key(parsed.signing_public_key());
  *entry->mutable_participant_ids() = parsed.participant_ids();
  return 0;
}

int capi_server_start_round(capi_server* server) {
  absl::StatusOr<fedmf::v1::RoundPlan> plan = server->updater->Plan();
  if (!plan.ok()) return 1;
  server->plan = *plan;
  const int64_t round = server->updater->round();
  const fedmf::secagg::SessionConfig config{.context = "capi-test/round-" + std::to_string(round),
                                            .num_clients = static_cast<int>(server->ids.size()),
                                            .threshold = server->threshold,
                                            .bits = plan->bits(),
                                            .length = plan->length(),
                                            .signatures = server->signatures,
                                            .consistency_check = server->signatures};
  server->directory.reset();
  if (server->signatures) {
    auto d = fedmf::wire::DirectoryFromProto(server->keys);
    if (!d.ok()) return 1;
    server->directory = *d;
  }
  auto session = fedmf::secagg::ServerSession::Create(config, server->ids, server->directory);
  if (!session.ok()) return 1;
  server->session = std::move(*session);
  server->contributors = 0;
  for (uint32_t id : server->ids) {
    fedmf::v1::ServerMessage m;
    fedmf::v1::RoundTask* task = m.mutable_task();
    task->set_round(round);
    *task->mutable_plan() = *plan;
    *task->mutable_secagg() = fedmf::wire::ToProto(config);
    task->add_participant_ids(id);
    server->Queue(id, m);
  }
  return 0;
}

int capi_server_next(capi_server* server, uint32_t* to, const uint8_t** data, size_t* len) {
  if (server->outbox.empty()) return 0;
  *to = server->outbox.front().first;
  server->current = std::move(server->outbox.front().second);
  server->outbox.pop_front();
  *data = reinterpret_cast<const uint8_t*>(server->current.data());
  *len = server->current.size();
  return 1;
}

int capi_server_deliver(capi_server* server, const uint8_t* data, size_t len) {
  fedmf::v1::ClientMessage m;
  if (server->session == nullptr || !m.ParseFromArray(data, static_cast<int>(len))) return 1;
  if (m.has_chunk()) {
    auto complete = server->inbound.Add(m);
    if (!complete.ok()) return 1;
    if (!complete->has_value()) return 0;
    m = std::move((*complete)->message);
  }
  if (!m.has_secagg() || m.secagg().round() != server->updater->round()) return 1;
  absl::StatusOr<std::vector<fedmf::secagg::ServerMessage>> answer =
      server->session->HandleMessage(m.secagg().participant_id(), m.secagg().message());
  return answer.ok() && answer->empty() ? 0 : 1;  // a rejected message is answered by an Abort
}

int capi_server_close_stage(capi_server* server) {
  if (server->session == nullptr) return CAPI_ROUND_FAILED;
  absl::StatusOr<std::vector<fedmf::secagg::ServerMessage>> next = server->session->CloseStage();
  if (!next.ok()) return CAPI_ROUND_FAILED;
  const int64_t round = server->updater->round();
  for (fedmf::secagg::ServerMessage& sm : *next) {
    server->Queue(sm.client_id,
                  fedmf::wire::ToParticipant({round, 0}, sm.client_id, std::move(sm.message),
                                             server->directory.get()));
  }
  if (server->session->stage() == fedmf::secagg::ServerStage::kAborted) {
    server->Result(false);
    return CAPI_ROUND_FAILED;
  }
  if (server->session->stage() != fedmf::secagg::ServerStage::kCompleted) {
    return CAPI_ROUND_RUNNING;
  }
  absl::StatusOr<std::vector<uint64_t>> sum = server->session->result();
  const std::vector<uint32_t> included_ids = server->session->IncludedClients();
  const int included = static_cast<int>(included_ids.size());
  if (!sum.ok() || !server->updater->ApplySum(*sum, included_ids).ok()) {
    server->Result(false);
    return CAPI_ROUND_FAILED;
  }
  server->contributors = included;
  server->last_sum = *sum;
  server->Result(true);
  return CAPI_ROUND_APPLIED;
}

size_t capi_server_last_sum(const capi_server* server, uint64_t* out, size_t capacity) {
  std::copy_n(server->last_sum.begin(), std::min(capacity, server->last_sum.size()), out);
  return server->last_sum.size();
}

int capi_server_contributors(const capi_server* server) { return server->contributors; }
int64_t capi_server_rounds(const capi_server* server) { return server->updater->round(); }

}  // extern "C"
