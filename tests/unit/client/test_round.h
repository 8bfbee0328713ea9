// Test helpers: a tiny DPMF-RP setup (no noise) whose round plans the client tests answer, a
// task of the contract probe (whose participants keep a state), and the server side of a whole
// SecAgg round against a ParticipantHost.
#ifndef FEDMF_TESTS_UNIT_CLIENT_TEST_ROUND_H_
#define FEDMF_TESTS_UNIT_CLIENT_TEST_ROUND_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "client/participant_host.h"
#include "common/algorithms/dpmf_rp/updater.h"
#include "common/algorithms/probe/updater.h"
#include "common/data/synthetic.h"
#include "crypto/secagg/server_session.h"
#include "tests/unit/crypto/secagg_driver.h"
#include "tests/unit/participant_ids.h"
#include "wire/envelope.h"

namespace fedmf::client::test_util {

// 40 users x 30 items, 8 ratings each.
inline std::shared_ptr<const data::RatingsDataset> SmallData() {
  data::SyntheticConfig c;
  c.num_users = 40;
  c.num_items = 30;
  c.ratings_per_user = 8;
  c.min_ratings_per_user = 4;
  return std::make_shared<const data::RatingsDataset>(data::GenerateSynthetic(c).value());
}

// Cohort of 10 (participation 0.25 of 40 users), n_min 6, rank 4, no noise (unless `mechanism`
// says otherwise, at epsilon 1), full item model. Without secure aggregation the plans ask for
// clear uploads (n_min 1).
inline algorithms::dpmf_rp::DpmfRpConfig SmallConfig(
    bool secure_aggregation = true,
    algorithms::dpmf_rp::Mechanism mechanism = algorithms::dpmf_rp::Mechanism::kNone) {
  algorithms::dpmf_rp::DpmfRpConfig c;
  c.num_users = 40;
  c.num_items = 30;
  c.rank = 4;
  c.mechanism = mechanism;
  c.item_model = algorithms::dpmf_rp::ItemModel::kFull;
  c.compression = 2;
  c.participation = 0.25;
  c.min_clients = 6;
  c.rounds = 3;
  c.secure_aggregation = secure_aggregation;
  c.rating_scale = {.min = 1, .max = 5};
  return c;
}

inline std::unique_ptr<algorithms::dpmf_rp::DpmfRpUpdater> SmallUpdater(
    bool secure_aggregation = true,
    algorithms::dpmf_rp::Mechanism mechanism = algorithms::dpmf_rp::Mechanism::kNone) {
  return algorithms::dpmf_rp::DpmfRpUpdater::Create(SmallConfig(secure_aggregation, mechanism))
      .value();
}

using fedmf::test_util::ParticipantIds;

// SmallConfig's cohort (participation 0.25 of 40 users), and its participant ids.
inline constexpr int kCohort = 10;
inline std::vector<uint32_t> Cohort() { return ParticipantIds(kCohort); }

// Every dense user of `data`.
inline std::vector<int32_t> AllUsers(const data::RatingsDataset& data) {
  std::vector<int32_t> users;
  for (int32_t u = 0; u < data.num_users(); ++u) users.push_back(u);
  return users;
}

// The round-0 task of the contract probe's phase 0 for participants 1..n of `data`: clear
// uploads, after which each contributor keeps a state of the probe's algorithm (DPMF-RP keeps
// none).
inline v1::ServerMessage ProbeTask(const data::RatingsDataset& data, int n) {
  v1::ProbeConfig config;
  config.set_num_items(data.num_items());
  config.set_num_users(data.num_users());
  config.set_rounds(1);
  config.set_cohort_size(n);
  config.set_min_contributors(1);
  config.set_report_epsilon(1);
  v1::ServerMessage task;
  task.mutable_task()->set_round(0);
  *task.mutable_task()->mutable_plan() =
      algorithms::probe::ProbeUpdater::Create(config).value()->Plan().value();
  for (uint32_t id : ParticipantIds(n)) task.mutable_task()->add_participant_ids(id);
  return task;
}

// Plays `server` against `host` from the host's answers to the task (`replies`) until the
// session completes: every reply goes to the server, every server message of the next stage to
// the host (tagged `evaluation`; a ShareKeysRequest with the neighbors' keys from `signing_keys`,
// in a signed session). Returns how many of those asked for a consistency check; an error if the
// session aborts, a message is refused, or a reply is not SecAgg of the round's kind.
inline absl::StatusOr<int> RunSecAggRound(
    ParticipantHost& host, secagg::ServerSession& server, std::vector<v1::ClientMessage> replies,
    bool evaluation, const secagg::SigningKeyDirectory* signing_keys = nullptr) {
  int consistency_requests = 0;
  while (true) {
    for (const v1::ClientMessage& r : replies) {
      if (!r.has_secagg() || wire::TagOf(r.secagg()).evaluation() != evaluation) {
        return absl::InternalError(absl::StrCat("unexpected reply ", r.ShortDebugString()));
      }
      if (absl::Status s = secagg::test_util::Accepted(server, r.secagg().participant_id(),
                                                       r.secagg().message());
          !s.ok()) {
        return s;
      }
    }
    if (server.stage() == secagg::ServerStage::kCompleted) return consistency_requests;
    if (server.stage() == secagg::ServerStage::kAborted) return server.status();
    absl::StatusOr<std::vector<secagg::ServerMessage>> next = server.CloseStage();
    if (!next.ok()) return next.status();
    replies.clear();
    for (secagg::ServerMessage& m : *next) {
      if (m.message.has_consistency_check()) ++consistency_requests;
      const v1::ServerMessage out =
          wire::ToParticipant({.round = 0, .phase = evaluation ? wire::kEvaluationPhase : 0},
                              m.client_id, std::move(m.message), signing_keys);
      absl::StatusOr<std::vector<v1::ClientMessage>> answer = host.Handle(out);
      if (!answer.ok()) return answer.status();
      for (v1::ClientMessage& r : *answer) replies.push_back(std::move(r));
    }
  }
}

}  // namespace fedmf::client::test_util

#endif  // FEDMF_TESTS_UNIT_CLIENT_TEST_ROUND_H_
