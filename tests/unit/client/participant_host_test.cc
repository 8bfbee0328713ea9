#include "client/participant_host.h"

#include <cmath>
#include <cstdint>

#include "common/algorithms/dpmf_rp/contributor.h"
#include "common/algorithms/hdpmf/privacy_spec.h"
#include "common/algorithms/hdpmf/updater.h"
#include "common/algorithms/hfl_sgdmf/updater.h"
#include "common/algorithms/lfl_sgdmf/updater.h"
#include "common/algorithms/registry.h"
#include "common/data/synthetic.h"
#include "crypto/secagg/server_session.h"
#include "gtest/gtest.h"
#include "tests/unit/algorithms/lfl_sgdmf/test_config.h"
#include "tests/unit/client/test_round.h"
#include "wire/chunking.h"
#include "wire/clear_upload.h"
#include "wire/envelope.h"
#include "wire/secagg_params.h"

namespace fedmf::client {
namespace {

using test_util::Cohort;
using test_util::kCohort;

struct TrainingRound {
  std::shared_ptr<const data::RatingsDataset> data = test_util::SmallData();
  std::unique_ptr<algorithms::dpmf_rp::DpmfRpUpdater> updater = test_util::SmallUpdater();
  v1::RoundPlan plan = updater->Plan().value();
  secagg::SessionConfig config{.context = "test/round-0",
                               .num_clients = kCohort,
                               .threshold = 6,
                               .bits = plan.bits(),
                               .length = plan.length()};

  std::unique_ptr<ParticipantHost> Host() {
    return ParticipantHost::Create(data, test_util::AllUsers(*data)).value();
  }
  v1::ServerMessage Task(std::vector<uint32_t> ids) {
    v1::ServerMessage m;
    m.mutable_task()->set_round(0);
    *m.mutable_task()->mutable_plan() = plan;
    *m.mutable_task()->mutable_secagg() = wire::ToProto(config);
    for (uint32_t id : ids) m.mutable_task()->add_participant_ids(id);
    return m;
  }
};

// A host without a dataset (the mobile binding's): participants start with no ratings, get them
// through SetRatings, and restore a model without a round in progress.
TEST(ParticipantHostTest, HostsParticipantsWithoutADataset) {
  TrainingRound f;
  auto key = crypto::Ed25519PrivateKey::Generate().value();
  const std::string public_key(key.public_key().bytes().begin(), key.public_key().bytes().end());
  EXPECT_EQ(
      ParticipantHost::CreateWithoutData({3, 3}, 30, crypto::Ed25519PrivateKey::Generate().value())
          .status()
          .code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      ParticipantHost::CreateWithoutData({0}, 30, crypto::Ed25519PrivateKey::Generate().value())
          .status()
          .code(),
      absl::StatusCode::kInvalidArgument);
  auto host = ParticipantHost::CreateWithoutData({5}, f.data->num_items(), std::move(key)).value();
  EXPECT_EQ(host->signing_public_key(), public_key);  // the key it was given
  EXPECT_EQ(host->Find(5)->ratings().size(), 0);
  ASSERT_TRUE(host->SetRatings(5, f.data->user(4)).ok());
  EXPECT_EQ(host->Find(5)->ratings().size(), f.data->user(4).size());
  EXPECT_EQ(host->SetRatings(6, f.data->user(5)).code(), absl::StatusCode::kNotFound);

  v1::RoundPlan broken = f.plan;
  broken.set_algorithm("no-such-algorithm");
  EXPECT_EQ(host->RestoreModel(broken).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(host->contributor(), nullptr);
  EXPECT_EQ(host->model_version(), 0);
  ASSERT_TRUE(host->RestoreModel(f.plan).ok());
  host->RestoreProgress(2, true);
  EXPECT_NE(host->contributor(), nullptr);
  EXPECT_EQ(host->model().SerializeAsString(), f.plan.SerializeAsString());
  EXPECT_EQ(host->model_version(), 1);
  EXPECT_EQ(host->rounds_completed(), 2);
  EXPECT_TRUE(host->training_done());
  v1::ServerMessage m;  // a SecAgg message of round 0: no round is in progress after a restore
  m.mutable_secagg()->set_participant_id(5);
  EXPECT_EQ(host->Handle(m).status().code(), absl::StatusCode::kFailedPrecondition);
}

// A model of another catalogue than the host's dataset is refused before it replaces anything,
// with the status IsCatalogueMismatch recognizes: from a task (nobody contributes) and as the
// final model (training is done all the same).
TEST(ParticipantHostTest, RefusesAModelOfAnotherCatalogue) {
  TrainingRound f;  // the plan's model has 30 items
  data::SyntheticConfig c;
  c.num_users = 40;
  c.num_items = 25;
  c.ratings_per_user = 8;
  c.min_ratings_per_user = 4;
  auto data = std::make_shared<const data::RatingsDataset>(data::GenerateSynthetic(c).value());
  auto host = ParticipantHost::Create(data, test_util::AllUsers(*data)).value();
  EXPECT_EQ(host->num_items(), 25);
  const absl::Status task = host->Handle(f.Task(Cohort())).status();
  EXPECT_EQ(task.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(IsCatalogueMismatch(task)) << task;
  EXPECT_NE(task.message().find("has 30 items, this client's catalogue 25"), std::string::npos)
      << task;
  EXPECT_EQ(host->contributor(), nullptr);
  EXPECT_EQ(host->Find(1)->session(), nullptr);
  v1::ServerMessage done;
  done.mutable_result()->set_training_done(true);
  *done.mutable_result()->mutable_final_model() = f.plan;
  EXPECT_TRUE(IsCatalogueMismatch(host->Handle(done).status()));
  EXPECT_TRUE(host->training_done());
  EXPECT_EQ(host->contributor(), nullptr);
  EXPECT_FALSE(IsCatalogueMismatch(absl::FailedPreconditionError("has 30 items")));
  // A host of the matching catalogue takes the same task.
  EXPECT_TRUE(f.Host()->Handle(f.Task(Cohort())).ok());
}

TEST(ParticipantHostTest, RejectsUsersOutsideTheDatasetAndRepeats) {
  auto data = test_util::SmallData();
  EXPECT_EQ(ParticipantHost::Create(data, {40}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParticipantHost::Create(data, {-1}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParticipantHost::Create(data, {3, 3}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// A whole round through the host and a real ServerSession, no network: the decoded sum is the
// sum of the ten users' contributions. Each contribution rounds stochastically (its own noise
// generator), so a recomputation may differ by at most 1 per user and coordinate: |diff| <= 10.
TEST(ParticipantHostTest, AnswersAWholeSecAggRound) {
  TrainingRound f;
  auto host = f.Host();
  auto server = secagg::ServerSession::Create(f.config, Cohort(), nullptr).value();
  absl::StatusOr<std::vector<v1::ClientMessage>> advertise = host->Handle(f.Task(Cohort()));
  ASSERT_TRUE(advertise.ok()) << advertise.status();
  ASSERT_EQ(advertise->size(), static_cast<size_t>(kCohort));
  absl::StatusOr<int> run = test_util::RunSecAggRound(*host, *server, *advertise, false);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(*run, 0);  // no consistency check without signatures
  const std::vector<uint64_t> sum = server->result().value();
  auto contributor = algorithms::MakeContributor(f.plan).value();
  std::vector<uint64_t> expected(f.plan.length(), 0);
  for (int32_t u = 0; u < kCohort; ++u) {
    dp::Rng rng(static_cast<uint64_t>(u));
    auto c = contributor->Contribute(algorithms::LocalData::User(f.data->user(u)), "", rng).value();
    ASSERT_TRUE(algorithms::AddModPow2(c.vector, f.plan.bits(), absl::MakeSpan(expected)).ok());
  }
  const uint64_t mask = (uint64_t{1} << f.plan.bits()) - 1;
  for (size_t j = 0; j < sum.size(); ++j) {
    const uint64_t up = (sum[j] - expected[j]) & mask, down = (expected[j] - sum[j]) & mask;
    ASSERT_LE(std::min(up, down), static_cast<uint64_t>(kCohort)) << "coordinate " << j;
  }
  EXPECT_TRUE(f.updater->ApplySum(sum, Cohort()).ok());
  v1::ServerMessage result;
  result.mutable_result()->set_applied(true);
  result.mutable_result()->set_rounds_completed(1);
  EXPECT_TRUE(host->Handle(result).value().empty());
  EXPECT_EQ(host->rounds_completed(), 1);
  EXPECT_FALSE(host->training_done());
  EXPECT_EQ(host->Find(1)->session(), nullptr);
  EXPECT_EQ(host->model().round(), 0);  // the task's model until the final one comes
  EXPECT_EQ(host->model_version(), 1);  // the task's; a result without a model keeps it

  // The result that ends training brings the final model; one that builds no contributor is
  // refused, naming it, and leaves the model as it was (training is done all the same).
  v1::ServerMessage done;
  done.mutable_result()->set_rounds_completed(1);
  done.mutable_result()->set_training_done(true);
  *done.mutable_result()->mutable_final_model() = f.updater->Plan().value();
  v1::ServerMessage broken = done;
  broken.mutable_result()->mutable_final_model()->set_payload("not a broadcast");
  const absl::Status refused = host->Handle(broken).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("final model"), std::string::npos) << refused;
  EXPECT_TRUE(host->training_done());
  EXPECT_EQ(host->model().round(), 0);
  EXPECT_EQ(host->model_version(), 1);
  EXPECT_TRUE(host->Handle(done).value().empty());
  EXPECT_EQ(host->model().SerializeAsString(), done.result().final_model().SerializeAsString());
  EXPECT_EQ(host->model_version(), 2);
  EXPECT_NE(host->contributor(), nullptr);
}

// A long-running service's run ends with run_done: the host adopts the run's final model, as on
// training_done, but is not done: its rounds count from 0 again, the participants' ended run is
// persisted at once (a restart must not bring its algorithm states back), and it answers the next
// run's first task.
TEST(ParticipantHostTest, ARunDoneResultBringsTheModelAndKeepsTheHostForTheNextRun) {
  TrainingRound f;
  auto host = f.Host();
  int persisted = 0;
  v1::HostLocalState last;
  host->set_local_state_sink([&](const v1::HostLocalState& state) {
    ++persisted;
    last = state;
    return absl::OkStatus();
  });
  auto server = secagg::ServerSession::Create(f.config, Cohort(), nullptr).value();
  absl::StatusOr<std::vector<v1::ClientMessage>> advertise = host->Handle(f.Task(Cohort()));
  ASSERT_TRUE(advertise.ok()) << advertise.status();
  ASSERT_TRUE(test_util::RunSecAggRound(*host, *server, *advertise, false).ok());
  ASSERT_TRUE(f.updater->ApplySum(server->result().value(), Cohort()).ok());
  const int persisted_in_the_round = persisted;
  v1::ServerMessage run_done;
  run_done.mutable_result()->set_rounds_completed(1);
  run_done.mutable_result()->set_run_done(true);
  run_done.mutable_result()->set_reason("rounds done");
  *run_done.mutable_result()->mutable_final_model() = f.updater->Plan().value();
  run_done.mutable_result()->mutable_final_model_version()->set_version(4);
  EXPECT_TRUE(host->Handle(run_done).value().empty());
  EXPECT_EQ(persisted, persisted_in_the_round + 1);
  EXPECT_GT(last.participants_size(), 0);
  for (const v1::ParticipantLocalState& p : last.participants()) {
    EXPECT_TRUE(p.algorithm_states().empty()) << p.participant_id();
  }
  EXPECT_FALSE(host->training_done());
  EXPECT_EQ(host->rounds_completed(), 0);
  EXPECT_EQ(host->model().SerializeAsString(), run_done.result().final_model().SerializeAsString());
  EXPECT_EQ(host->published_model().version(), 4);
  EXPECT_EQ(host->Find(1)->session(), nullptr);
  advertise = host->Handle(f.Task(Cohort()));
  ASSERT_TRUE(advertise.ok()) << advertise.status();
  EXPECT_EQ(advertise->size(), static_cast<size_t>(kCohort));
}

// lfl-sgdmf's phase 1 plans no model (its users hold V from phase 0): the host answers it with
// the users' phase-0 keys and keeps phase 0's model; a user without that key declines alone, and
// a phase-1 plan is not a model to adopt.
TEST(ParticipantHostTest, KeepsTheModelThroughAPhaseThatCarriesNone) {
  TrainingRound f;  // 40 users x 30 items
  const v1::LflSgdmfConfig c = algorithms::lfl_sgdmf::testing::SmallConfig(
      v1::LFL_NOISE_TWO_PHASE, /*num_users=*/40, /*num_items=*/30, kCohort, /*omega=*/0.4,
      /*sigma=*/1);
  auto updater = algorithms::lfl_sgdmf::LflSgdmfUpdater::Create(c).value();
  auto host = f.Host();
  auto task = [&](const v1::RoundPlan& plan, std::vector<uint32_t> ids) {
    f.plan = plan;
    f.config.bits = plan.bits();
    f.config.length = plan.length();
    return f.Task(std::move(ids));
  };
  const v1::RoundPlan phase0 = updater->Plan().value();
  ASSERT_TRUE(host->Handle(task(phase0, Cohort())).ok());
  EXPECT_EQ(host->model_version(), 1);

  ASSERT_TRUE(updater->ApplySum(std::vector<uint64_t>(phase0.length(), 0), Cohort()).ok());
  const v1::RoundPlan phase1 = updater->Plan().value();
  ASSERT_EQ(phase1.phase(), 1);
  // User 20 (participant 21) took no phase 0 of this round: it holds no key to replace, so it
  // alone declines (the coordinator sees its dropout and the reason); the others answer.
  std::vector<uint32_t> listed = Cohort();
  listed.push_back(21);
  absl::StatusOr<std::vector<v1::ClientMessage>> replacement = host->Handle(task(phase1, listed));
  ASSERT_TRUE(replacement.ok()) << replacement.status();
  ASSERT_EQ(replacement->size(), static_cast<size_t>(kCohort) + 1);
  for (const v1::ClientMessage& reply : *replacement) {
    const bool stranger = reply.secagg().participant_id() == 21;
    EXPECT_EQ(reply.secagg().message().has_abort(), stranger) << reply.ShortDebugString();
    if (stranger) {
      EXPECT_NE(reply.secagg().message().abort().reason().find("phase 1 of round 0"),
                std::string::npos)
          << reply.ShortDebugString();
    }
  }
  EXPECT_EQ(host->model().SerializeAsString(), phase0.SerializeAsString());
  EXPECT_EQ(host->model_version(), 1);
  EXPECT_EQ(host->contributor()->scorer().num_items(), 30);

  v1::ServerMessage done;
  done.mutable_result()->set_training_done(true);
  *done.mutable_result()->mutable_final_model() = phase1;
  const absl::Status adopted = host->Handle(done).status();
  EXPECT_NE(adopted.message().find("carries no model"), std::string::npos) << adopted;
  EXPECT_EQ(host->model().SerializeAsString(), phase0.SerializeAsString());
}

// A plan its algorithm cannot take from users (HFL-SGDMF's contributions come from silo
// parties): every listed user declines with a SecAgg Abort carrying the contributor's error as
// a refusal (its code and message), for the coordinator to see that no retry helps; the host
// answers for all of them instead of failing the task.
TEST(ParticipantHostTest, UsersRefuseAPartyAlgorithmsPlanWithTheContributorsError) {
  TrainingRound f;  // 40 users x 30 items
  v1::HflSgdmfConfig c;
  c.set_num_users(40);
  c.set_num_items(30);
  c.set_num_parties(2);
  c.set_rank(4);
  c.set_rating_max(5);
  c.set_max_ratings_per_user(5);
  c.set_sampling_rate(0.3);
  c.set_noise_multiplier(0.7);
  c.set_syncs(3);
  c.set_local_steps(4);
  c.set_pretrain_steps(10);
  c.set_finetune_steps(10);
  c.set_mode("train-both");
  c.set_learning_rate(0.05);
  c.set_final_learning_rate_fraction(0.5);
  c.set_init_prediction(3);
  c.set_seed(9);
  c.set_secure_sum(true);
  auto updater = algorithms::hfl_sgdmf::HflSgdmfUpdater::Create(c).value();
  f.plan = updater->Plan().value();
  f.config.bits = f.plan.bits();
  f.config.length = f.plan.length();
  auto host = f.Host();
  absl::StatusOr<std::vector<v1::ClientMessage>> replies = host->Handle(f.Task({1, 2, 3}));
  ASSERT_TRUE(replies.ok()) << replies.status();
  ASSERT_EQ(replies->size(), 3u);
  for (const v1::ClientMessage& reply : *replies) {
    ASSERT_TRUE(reply.secagg().message().has_abort()) << reply.ShortDebugString();
    const v1::secagg::Abort& abort = reply.secagg().message().abort();
    EXPECT_EQ(abort.refusal_code(), static_cast<int32_t>(absl::StatusCode::kInvalidArgument));
    EXPECT_NE(abort.reason().find("contributions come from HFL silo parties"), std::string::npos)
        << abort.reason();
  }
}

// The directory a signed session's server verifies against: every cohort member signs with `key`.
std::shared_ptr<secagg::MapSigningKeyDirectory> CohortSignedWith(const std::string& key) {
  google::protobuf::RepeatedPtrField<v1::SigningKeys> keys;
  v1::SigningKeys* entry = keys.Add();
  entry->set_public_key(key);
  for (uint32_t id : Cohort()) entry->add_participant_ids(id);
  return wire::DirectoryFromProto(keys).value();
}

// With signatures and the consistency check: the host signs with its one key, which each
// ShareKeysRequest lists for its neighbors (the task lists no key); the server verifies against
// the same directory.
TEST(ParticipantHostTest, AnswersASignedRoundWithTheConsistencyCheck) {
  TrainingRound f;
  f.config.signatures = true;
  f.config.consistency_check = true;
  auto host = f.Host();
  auto directory = CohortSignedWith(host->signing_public_key());
  auto server = secagg::ServerSession::Create(f.config, Cohort(), directory).value();
  absl::StatusOr<int> consistency_requests = test_util::RunSecAggRound(
      *host, *server, host->Handle(f.Task(Cohort())).value(), false, directory.get());
  ASSERT_TRUE(consistency_requests.ok()) << consistency_requests.status();
  EXPECT_EQ(*consistency_requests, kCohort);
  EXPECT_EQ(server->IncludedClients().size(), static_cast<size_t>(kCohort));
}

// Participant 1's answer to the first ShareKeysRequest of a signed session whose envelope carries
// `signing_keys`' keys (none: null), after the whole cohort advertised.
v1::ClientMessage AnswerToShareKeys(TrainingRound& f, ParticipantHost& host,
                                    const secagg::SigningKeyDirectory* signing_keys) {
  auto server =
      secagg::ServerSession::Create(f.config, Cohort(), CohortSignedWith(host.signing_public_key()))
          .value();
  const std::vector<v1::ClientMessage> advertised = host.Handle(f.Task(Cohort())).value();
  for (const v1::ClientMessage& r : advertised) {
    EXPECT_TRUE(server->HandleMessage(r.secagg().participant_id(), r.secagg().message()).ok());
  }
  std::vector<secagg::ServerMessage> share_keys = server->CloseStage().value();
  EXPECT_EQ(share_keys.front().client_id, 1u);
  std::vector<v1::ClientMessage> replies =
      host.Handle(wire::ToParticipant({}, 1, share_keys.front().message, signing_keys)).value();
  EXPECT_EQ(replies.size(), 1u);
  return replies.empty() ? v1::ClientMessage() : replies.front();
}

TEST(ParticipantHostTest, AbortsWhenTheShareKeysRequestListsAnotherKeyForItsParticipant) {
  TrainingRound f;
  f.config.signatures = true;
  auto host = f.Host();
  const crypto::Ed25519PublicKey other = crypto::Ed25519PrivateKey::Generate()->public_key();
  auto substituted = CohortSignedWith(std::string(other.bytes().begin(), other.bytes().end()));
  const v1::ClientMessage reply = AnswerToShareKeys(f, *host, substituted.get());
  ASSERT_TRUE(reply.secagg().message().has_abort()) << reply.ShortDebugString();
  EXPECT_NE(reply.secagg().message().abort().reason().find(
                "do not list this process's key for participant 1"),
            std::string::npos)
      << reply.ShortDebugString();
  EXPECT_EQ(host->Find(1)->session(), nullptr);
}

TEST(ParticipantHostTest, AbortsASignedShareKeysRequestThatCameWithoutKeys) {
  TrainingRound f;
  f.config.signatures = true;
  auto host = f.Host();
  const v1::ClientMessage reply = AnswerToShareKeys(f, *host, nullptr);
  ASSERT_TRUE(reply.secagg().message().has_abort()) << reply.ShortDebugString();
  EXPECT_NE(reply.secagg().message().abort().reason().find("no signing keys came"),
            std::string::npos)
      << reply.ShortDebugString();
}

// A signed round restored into a new host (the mobile binding's restart) saves as it was saved
// until a message comes: the neighbors' signing keys included, without which the re-saved round
// would restore no more (issue 46).
TEST(ParticipantHostTest, ARestoredSignedRoundSavesAsItWasSaved) {
  TrainingRound f;
  f.config.signatures = true;
  auto host = f.Host();
  auto directory = CohortSignedWith(host->signing_public_key());
  ASSERT_FALSE(AnswerToShareKeys(f, *host, directory.get()).secagg().message().has_abort());
  absl::StatusOr<std::optional<v1::SavedRound>> saved = host->SaveRound(1);
  ASSERT_TRUE(saved.ok()) << saved.status();
  ASSERT_TRUE(saved->has_value());
  ASSERT_FALSE((*saved)->signing_keys().empty());
  auto restored =
      ParticipantHost::CreateWithoutData(
          {1}, 30, crypto::Ed25519PrivateKey::FromSeed(host->signing_key().seed().span()).value())
          .value();
  ASSERT_TRUE(restored->RestoreRound(1, **saved).ok());
  absl::StatusOr<std::optional<v1::SavedRound>> again = restored->SaveRound(1);
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_TRUE(again->has_value());
  EXPECT_EQ((*again)->signing_keys_size(), (*saved)->signing_keys_size());
  EXPECT_EQ((*again)->SerializeAsString(), (*saved)->SerializeAsString());
}

TEST(ParticipantHostTest, RefusesATaskForAUserItDoesNotHost) {
  TrainingRound f;
  auto host = ParticipantHost::Create(f.data, {0, 1}).value();
  EXPECT_EQ(host->Handle(f.Task({1, 2, 3})).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(host->Find(1)->session(), nullptr);  // nothing started
}

TEST(ParticipantHostTest, RefusesATaskWhoseSecAggShapeDiffersFromThePlan) {
  TrainingRound f;
  auto host = f.Host();
  v1::ServerMessage task = f.Task(Cohort());
  task.mutable_task()->mutable_secagg()->set_length(f.plan.length() + 1);
  EXPECT_EQ(host->Handle(task).status().code(), absl::StatusCode::kInvalidArgument);
}

// A coordinator asking for a secure-sum plan in the clear is refused unless the host is the
// simulator's.
TEST(ParticipantHostTest, RefusesAPlainSumTaskUnlessSimulating) {
  TrainingRound f;
  v1::ServerMessage task = f.Task(Cohort());
  task.mutable_task()->clear_secagg();
  task.mutable_task()->set_simulation_plain_sum(true);
  auto host = f.Host();
  EXPECT_EQ(host->Handle(task).status().code(), absl::StatusCode::kPermissionDenied);
  auto simulated = f.Host();
  simulated->AllowSimulationPlainSum();
  absl::StatusOr<std::vector<v1::ClientMessage>> replies = simulated->Handle(task);
  ASSERT_TRUE(replies.ok()) << replies.status();
  ASSERT_EQ(replies->size(), Cohort().size());
  EXPECT_TRUE((*replies)[0].has_clear_upload());
}

// A plan whose users would leave their noise out for the simulator's updater to draw (its
// simulation_summed_noise: dpmf-rp's Gaussian mechanism, lfl-sgdmf, hdpmf) is refused by a real
// client before anyone contributes, even through SecAgg, whose sum would then reach the
// coordinator without noise: nothing is sent and nothing changes. The same plan without the
// shortcut is taken, and so is the shortcut by the simulator's host (fedmf-sim --plain_sum
// --summed_noise).
TEST(ParticipantHostTest, RefusesToUploadWithoutNoiseUnlessSimulating) {
  TrainingRound f;  // 40 users x 30 items
  algorithms::dpmf_rp::DpmfRpConfig dpmf_rp =
      test_util::SmallConfig(true, algorithms::dpmf_rp::Mechanism::kGaussian);
  v1::LflSgdmfConfig lfl = algorithms::lfl_sgdmf::testing::SmallConfig(
      v1::LFL_NOISE_TWO_PHASE, /*num_users=*/40, /*num_items=*/30, kCohort, /*omega=*/0.4,
      /*sigma=*/1);
  v1::HdpmfConfig hdpmf;
  hdpmf.set_num_users(40);
  hdpmf.set_num_items(30);
  hdpmf.set_rank(2);
  hdpmf.set_rounds(4);
  hdpmf.set_epsilon(1);
  hdpmf.set_mode(v1::HDPMF_MODE_SOUND);
  hdpmf.set_variant(v1::HDPMF_VARIANT_HDPMF);
  hdpmf.set_learning_rate(0.05);
  hdpmf.set_lambda(0.01);
  hdpmf.set_rating_min(1);
  hdpmf.set_rating_max(5);
  hdpmf.set_clip(1);
  hdpmf.set_seed(5);
  hdpmf.set_init_scale(0.5);
  hdpmf.set_cohort_size(kCohort);
  hdpmf.set_min_contributors(6);
  *hdpmf.mutable_spec() = algorithms::hdpmf::DefaultPrivacySpec(11);
  hdpmf.set_score_lambda(1);
  for (const bool summed_noise : {false, true}) {
    dpmf_rp.simulation_summed_noise = summed_noise;
    lfl.set_simulation_summed_noise(summed_noise);
    hdpmf.set_simulation_summed_noise(summed_noise);
    std::vector<std::unique_ptr<algorithms::Updater>> updaters;
    updaters.push_back(algorithms::dpmf_rp::DpmfRpUpdater::Create(dpmf_rp).value());
    updaters.push_back(algorithms::lfl_sgdmf::LflSgdmfUpdater::Create(lfl).value());
    updaters.push_back(algorithms::hdpmf::HdpmfUpdater::Create(hdpmf).value());
    for (const std::unique_ptr<algorithms::Updater>& updater : updaters) {
      f.plan = updater->Plan().value();
      f.config.bits = f.plan.bits();
      f.config.length = f.plan.length();
      SCOPED_TRACE(absl::StrCat(f.plan.algorithm(), " summed_noise=", summed_noise));
      const v1::ServerMessage task = f.Task(Cohort());  // through SecAgg
      auto host = f.Host();
      const std::string before = host->ExportLocalState().SerializeAsString();
      std::vector<v1::ClientMessage> sent;
      const absl::Status handled = host->Handle(task, [&sent](v1::ClientMessage reply) {
        sent.push_back(std::move(reply));
        return absl::OkStatus();
      });
      if (!summed_noise) {  // the users add their noise: a real client's plan
        EXPECT_TRUE(handled.ok()) << handled;
        EXPECT_EQ(sent.size(), Cohort().size());
        continue;
      }
      EXPECT_EQ(handled.code(), absl::StatusCode::kPermissionDenied) << handled;
      EXPECT_NE(handled.message().find("round 0: refusing to upload without noise (the plan's "
                                       "simulation_summed_noise)"),
                std::string::npos)
          << handled;
      EXPECT_TRUE(sent.empty());
      EXPECT_EQ(host->contributor(), nullptr);
      EXPECT_EQ(host->model_version(), 0);
      for (uint32_t id : Cohort()) EXPECT_EQ(host->Find(id)->session(), nullptr);
      EXPECT_EQ(host->ExportLocalState().SerializeAsString(), before);

      v1::ServerMessage plain = task;
      plain.mutable_task()->clear_secagg();
      plain.mutable_task()->set_simulation_plain_sum(true);
      auto simulated = f.Host();
      simulated->AllowSimulationPlainSum();
      absl::StatusOr<std::vector<v1::ClientMessage>> replies = simulated->Handle(plain);
      ASSERT_TRUE(replies.ok()) << replies.status();
      ASSERT_EQ(replies->size(), Cohort().size());
      for (const v1::ClientMessage& reply : *replies) EXPECT_TRUE(reply.has_clear_upload());
    }
  }
}

// fedmf-sim --summed_uploads: with a summed-noise plan the first contributor uploads the sum of
// every listed user's contribution, after the others' zero uploads, and the uploads add up to
// the per-user ones up to rounding; a host not simulating uploads per user.
TEST(ParticipantHostTest, SummedUploadsSendTheUsersSumOnceAndZeroForTheOthers) {
  TrainingRound f;
  algorithms::dpmf_rp::DpmfRpConfig config =
      test_util::SmallConfig(true, algorithms::dpmf_rp::Mechanism::kGaussian);
  config.simulation_summed_noise = true;
  f.updater = algorithms::dpmf_rp::DpmfRpUpdater::Create(config).value();
  f.plan = f.updater->Plan().value();
  v1::ServerMessage task = f.Task(Cohort());
  task.mutable_task()->clear_secagg();
  task.mutable_task()->set_simulation_plain_sum(true);
  const auto decoder = algorithms::dpmf_rp::DpmfRpContributor::Create(f.plan).value();
  auto sum_of = [&](const std::vector<v1::ClientMessage>& replies) {
    std::vector<uint64_t> sum(f.plan.length(), 0);
    for (const v1::ClientMessage& reply : replies) {
      EXPECT_TRUE(algorithms::AddModPow2(wire::FromClearUpload(reply.clear_upload()).value(),
                                         f.plan.bits(), absl::MakeSpan(sum))
                      .ok());
    }
    return decoder->codec().DecodeSum(sum, kCohort).value();
  };
  auto per_user = f.Host();
  per_user->AllowSimulationPlainSum();
  const std::vector<v1::ClientMessage> separate = per_user->Handle(task).value();
  ASSERT_EQ(separate.size(), Cohort().size());
  for (const v1::ClientMessage& reply : separate) EXPECT_FALSE(reply.clear_upload().sparse());

  auto summed = f.Host();
  summed->AllowSimulationPlainSum();
  summed->AllowSimulationSummedUploads();
  const std::vector<v1::ClientMessage> together = summed->Handle(task).value();
  ASSERT_EQ(together.size(), Cohort().size());
  for (size_t i = 0; i + 1 < together.size(); ++i) {
    const v1::ClearUpload& zero = together[i].clear_upload();
    EXPECT_EQ(zero.participant_id(), Cohort()[i + 1]);
    EXPECT_TRUE(zero.sparse());
    EXPECT_EQ(zero.values_size(), 0);
  }
  const v1::ClearUpload& total = together.back().clear_upload();
  EXPECT_EQ(total.participant_id(), Cohort()[0]);
  EXPECT_FALSE(total.sparse());
  EXPECT_EQ(static_cast<uint64_t>(total.values_size()), f.plan.length());
  // Each per-user upload is rounded to the grid (one unit at most), the sum once.
  const double unit = std::ldexp(1.0, -config.fixed_point_bits);
  EXPECT_LE((sum_of(together) - sum_of(separate)).cwiseAbs().maxCoeff(), (kCohort + 1) * unit);
  EXPECT_GT((sum_of(together) - sum_of(separate)).cwiseAbs().maxCoeff(), 0);
  for (uint32_t id : Cohort()) {
    EXPECT_EQ(summed->Find(id)->user_factor(), per_user->Find(id)->user_factor());
  }
}

TEST(ParticipantHostTest, AnswersAClearRoundWithOneUploadPerListedUser) {
  TrainingRound f;
  f.updater = test_util::SmallUpdater(/*secure_aggregation=*/false);
  f.plan = f.updater->Plan().value();
  ASSERT_EQ(f.plan.combination(), v1::COMBINATION_CLEAR);
  auto host = f.Host();
  v1::ServerMessage task = f.Task({2, 5});
  task.mutable_task()->clear_secagg();
  auto replies = host->Handle(task);
  ASSERT_TRUE(replies.ok()) << replies.status();
  ASSERT_EQ(replies->size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const v1::ClearUpload& u = (*replies)[i].clear_upload();
    EXPECT_EQ(u.participant_id(), i == 0 ? 2u : 5u);
    EXPECT_EQ(u.round(), 0);
    EXPECT_EQ(static_cast<uint64_t>(u.values_size()), f.plan.length());
    EXPECT_FALSE(u.sparse());
    EXPECT_TRUE(algorithms::CheckVector(f.plan, algorithms::ContributionVector::Dense(
                                                    {u.values().begin(), u.values().end()}))
                    .ok());
  }
  EXPECT_EQ(host->Find(2)->session(), nullptr);
}

// The seeded noise of a user does not depend on which process hosts it or who else is there:
// user 4 (participant 5) uploads the same PBM vector from a host of all 40 users and from a host
// of only that user.
TEST(ParticipantHostTest, SeededNoiseDoesNotDependOnTheProcessLayout) {
  TrainingRound f;
  f.updater = test_util::SmallUpdater(false, algorithms::dpmf_rp::Mechanism::kPbm);
  f.plan = f.updater->Plan().value();
  std::vector<int32_t> all;
  for (int32_t u = 0; u < f.data->num_users(); ++u) all.push_back(u);
  auto everyone = ParticipantHost::Create(f.data, all, nullptr, 7).value();
  auto alone = ParticipantHost::Create(f.data, {4}, nullptr, 7).value();
  auto unseeded = ParticipantHost::Create(f.data, {4}).value();
  v1::ServerMessage task = f.Task({2, 5});
  task.mutable_task()->clear_secagg();
  auto from_everyone = everyone->Handle(task).value();
  ASSERT_EQ(from_everyone.size(), 2u);
  task.mutable_task()->clear_participant_ids();
  task.mutable_task()->add_participant_ids(5);
  auto from_alone = alone->Handle(task).value();
  auto from_unseeded = unseeded->Handle(task).value();
  ASSERT_EQ(from_alone.size(), 1u);
  ASSERT_EQ(from_unseeded.size(), 1u);
  EXPECT_EQ(from_everyone[1].SerializeAsString(), from_alone[0].SerializeAsString());
  EXPECT_NE(from_unseeded[0].SerializeAsString(), from_alone[0].SerializeAsString());
}

TEST(ParticipantHostTest, RefusesAnUnknownCombination) {
  TrainingRound f;
  auto host = f.Host();
  v1::ServerMessage task = f.Task(Cohort());
  task.mutable_task()->mutable_plan()->set_combination(v1::COMBINATION_UNSPECIFIED);
  EXPECT_EQ(host->Handle(task).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ParticipantHostTest, RefusesSecAggMessagesForUnknownOrIdleParticipants) {
  TrainingRound f;
  auto host = f.Host();
  v1::ServerMessage m;
  m.mutable_secagg()->set_participant_id(99);
  EXPECT_EQ(host->Handle(m).status().code(), absl::StatusCode::kInvalidArgument);
  m.mutable_secagg()->set_participant_id(1);  // hosted, but no round started
  EXPECT_EQ(host->Handle(m).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(host->Handle(v1::ServerMessage()).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ParticipantHostTest, IgnoresSecAggMessagesOfAnotherRound) {
  TrainingRound f;
  auto host = f.Host();
  ASSERT_TRUE(host->Handle(f.Task(Cohort())).ok());  // round 0
  v1::ServerMessage m;
  m.mutable_secagg()->set_participant_id(1);
  m.mutable_secagg()->set_round(1);
  m.mutable_secagg()->mutable_message()->mutable_share_keys();
  EXPECT_EQ(host->Handle(m).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(host->Find(1)->session()->stage(), secagg::ClientStage::kAwaitingShareKeys);
}

TEST(ParticipantHostTest, AnInconsistentServerMessageYieldsTheParticipantsAbort) {
  TrainingRound f;
  auto host = f.Host();
  ASSERT_TRUE(host->Handle(f.Task(Cohort())).ok());
  v1::ServerMessage m;
  m.mutable_secagg()->set_participant_id(1);
  m.mutable_secagg()->mutable_message()->mutable_share_keys();  // no session id, no keys
  auto replies = host->Handle(m);
  ASSERT_TRUE(replies.ok()) << replies.status();
  ASSERT_EQ(replies->size(), 1u);
  EXPECT_TRUE((*replies)[0].secagg().message().has_abort());
}

// Chunking (wire/chunking.h) with the smallest chunk size: the task arrives in pieces, and no
// reply serializes to more than the chunk size (an AdvertiseKeys reply, two 32-byte keys plus
// its envelope, fits whole; a larger one would leave in chunks).
TEST(ParticipantHostTest, ReassemblesAChunkedTaskAndChunksItsReplies) {
  TrainingRound f;
  auto host = f.Host();
  host->set_chunk_bytes(wire::kMinChunkBytes);
  const std::vector<v1::ServerMessage> chunks = wire::Split(f.Task(Cohort()), wire::kMinChunkBytes);
  ASSERT_GT(chunks.size(), 2u);
  for (size_t i = 0; i + 1 < chunks.size(); ++i) {
    absl::StatusOr<std::vector<v1::ClientMessage>> none = host->Handle(chunks[i]);
    ASSERT_TRUE(none.ok()) << none.status();
    EXPECT_TRUE(none->empty());
    if (i == 0) {  // a whole message may come between two chunks
      v1::ServerMessage result;
      result.mutable_result()->set_round(0);
      ASSERT_TRUE(host->Handle(result).ok());
    }
  }
  absl::StatusOr<std::vector<v1::ClientMessage>> replies = host->Handle(chunks.back());
  ASSERT_TRUE(replies.ok()) << replies.status();
  wire::Reassembler<v1::ClientMessage> server;
  std::vector<uint32_t> advertised;
  for (const v1::ClientMessage& piece : *replies) {
    EXPECT_LE(piece.ByteSizeLong(), wire::kMinChunkBytes);
    v1::ClientMessage whole = piece;
    if (piece.has_chunk()) {
      auto complete = server.Add(piece);
      ASSERT_TRUE(complete.ok()) << complete.status();
      if (!complete->has_value()) continue;
      whole = (*complete)->message;
    }
    EXPECT_TRUE(whole.secagg().message().has_advertise_keys());
    advertised.push_back(whole.secagg().participant_id());
  }
  EXPECT_EQ(advertised, Cohort());
}

// Feeds `host` every chunk of a task: the task runs, each cohort participant answering at once
// (small replies go out whole).
void ExpectTaskTaken(ParticipantHost& host, const std::vector<v1::ServerMessage>& chunks) {
  absl::StatusOr<std::vector<v1::ClientMessage>> replies;
  for (const v1::ServerMessage& c : chunks) {
    replies = host.Handle(c);
    ASSERT_TRUE(replies.ok()) << replies.status();
  }
  EXPECT_EQ(replies->size(), static_cast<size_t>(kCohort));
  EXPECT_NE(host.Find(1)->session(), nullptr);
}

TEST(ParticipantHostTest, RefusesABrokenChunkSequenceAndRecovers) {
  TrainingRound f;
  auto host = f.Host();
  const std::vector<v1::ServerMessage> chunks = wire::Split(f.Task(Cohort()), 256);
  ASSERT_GT(chunks.size(), 2u);
  ASSERT_TRUE(host->Handle(chunks[0]).ok());
  EXPECT_EQ(host->Handle(chunks[2]).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(host->Find(1)->session(), nullptr);  // no task ran
  ExpectTaskTaken(*host, chunks);
}

// The download bound (fedmf-client --max_download_bytes): a chunked task one byte above it is
// refused at its first chunk, and the same task is taken once the bound equals its size.
TEST(ParticipantHostTest, RefusesATaskAboveItsDownloadBoundAndTakesItOnceRaised) {
  TrainingRound f;
  const v1::ServerMessage task = f.Task(Cohort());
  const std::vector<v1::ServerMessage> chunks = wire::Split(task, 256);
  ASSERT_GT(chunks.size(), 2u);
  auto host = f.Host();
  host->set_max_download_bytes(task.ByteSizeLong() - 1);
  const absl::Status refused = host->Handle(chunks[0]).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument) << refused;
  EXPECT_EQ(host->Find(1)->session(), nullptr);
  host->set_max_download_bytes(task.ByteSizeLong());
  ExpectTaskTaken(*host, chunks);
}

// A host restored between two chunks of a task never saw chunk 0: the first chunk it gets
// answers with every hosted participant's decline for the chunk's aggregation (the coordinator
// drops them at once), the rest of that sequence with nothing, and the next task is taken as
// usual. A chunked message for one participant declines that participant only.
TEST(ParticipantHostTest, DeclinesAMessageWhoseStartItLost) {
  TrainingRound f;
  auto host = f.Host();
  const std::vector<v1::ServerMessage> chunks = wire::Split(f.Task(Cohort()), 256);
  ASSERT_GT(chunks.size(), 3u);
  EXPECT_EQ(chunks[1].chunk().phase(), 0);
  absl::StatusOr<std::vector<v1::ClientMessage>> declines = host->Handle(chunks[1]);
  ASSERT_TRUE(declines.ok()) << declines.status();
  ASSERT_EQ(declines->size(), host->participant_ids().size());
  for (const v1::ClientMessage& d : *declines) {
    EXPECT_TRUE(d.secagg().message().has_abort());
    EXPECT_EQ(d.secagg().round(), 0);
    EXPECT_EQ(d.secagg().phase(), 0);
    EXPECT_NE(d.secagg().message().abort().reason().find("restored between two chunks"),
              std::string::npos);
  }
  for (size_t i = 2; i < chunks.size(); ++i) {
    absl::StatusOr<std::vector<v1::ClientMessage>> none = host->Handle(chunks[i]);
    ASSERT_TRUE(none.ok()) << none.status();
    EXPECT_TRUE(none->empty()) << i;
  }
  EXPECT_EQ(host->Find(1)->session(), nullptr);
  ExpectTaskTaken(*host, chunks);

  v1::ServerMessage secagg;  // a large SecAgg message for participant 3 of an evaluation
  secagg.mutable_secagg()->set_participant_id(3);
  secagg.mutable_secagg()->set_round(0);
  secagg.mutable_secagg()->set_phase(wire::kEvaluationPhase);
  secagg.mutable_secagg()->mutable_message()->mutable_abort()->set_reason(std::string(600, 'x'));
  const std::vector<v1::ServerMessage> pieces = wire::Split(secagg, 256);
  ASSERT_GT(pieces.size(), 2u);
  declines = host->Handle(pieces[1]);
  ASSERT_TRUE(declines.ok()) << declines.status();
  ASSERT_EQ(declines->size(), 1u);
  EXPECT_EQ((*declines)[0].secagg().participant_id(), 3u);
  EXPECT_EQ((*declines)[0].secagg().phase(), wire::kEvaluationPhase);
  EXPECT_EQ(host->Find(3)->session(), nullptr);
  EXPECT_NE(host->Find(1)->session(), nullptr);
}

}  // namespace
}  // namespace fedmf::client
