// The C API's saved state across format versions (fedmf.v1.ParticipantState): version 3 carries
// the participant's local state (algorithm states, own privacy ledger under the config's budget),
// version 2 blobs still restore. C++, to build and inspect the blobs with the generated protos.
#include <cstdint>
#include <memory>
#include <string>

#include "common/dp/ledger_text_format.h"
#include "common/dp/participant_budget.h"
#include "fedmf/fedmf_client.h"
#include "fedmf/v1/mobile.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

struct Destroy {
  void operator()(fedmf_participant* p) const { fedmf_participant_destroy(p); }
};
using Handle = std::unique_ptr<fedmf_participant, Destroy>;

const uint8_t* Bytes(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

v1::ParticipantConfig Config(const std::string& budget) {
  v1::ParticipantConfig config;
  config.set_participant_id(5);
  config.set_num_items(30);
  config.set_budget(budget);
  return config;
}

Handle Create(const v1::ParticipantConfig& config) {
  const std::string bytes = config.SerializeAsString();
  fedmf_participant* p = nullptr;
  EXPECT_EQ(fedmf_participant_create(Bytes(bytes), bytes.size(), &p), FEDMF_OK)
      << fedmf_last_error();
  return Handle(p);
}

v1::ParticipantState Save(const fedmf_participant* p) {
  uint8_t* out = nullptr;
  size_t len = 0;
  EXPECT_EQ(fedmf_participant_save(p, &out, &len), FEDMF_OK) << fedmf_last_error();
  v1::ParticipantState state;
  EXPECT_TRUE(state.ParseFromArray(out, static_cast<int>(len)));
  fedmf_free(out);
  return state;
}

// fedmf_participant_restore's status; the restored handle in `out`.
fedmf_status Restore(const v1::ParticipantState& state, Handle* out) {
  const std::string bytes = state.SerializeAsString();
  fedmf_participant* p = nullptr;
  const fedmf_status status = fedmf_participant_restore(Bytes(bytes), bytes.size(), &p);
  out->reset(p);
  return status;
}

// A participant's own ledger after two contributions of pure epsilon 0.25 per user.
std::string SpentLedger() {
  dp::ParticipantBudget budget =
      dp::ParticipantBudget::Create(dp::PrivacyBudget::PureDp(1)).value();
  for (int64_t round = 0; round < 2; ++round) {
    dp::LedgerEntry entry;
    entry.round = round;
    entry.mechanism = "toy";
    entry.participants = 1;
    entry.n_min = 1;
    entry.unit = dp::PrivacyUnit::kUser;
    entry.pure_epsilon = 0.25;
    EXPECT_TRUE(budget.Charge(entry).ok());
  }
  return dp::SerializeLedger(budget.ledger());
}

TEST(CapiStateTest, SavesVersion3WithTheLocalState) {
  Handle p = Create(Config("pure:1"));
  const v1::ParticipantState state = Save(p.get());
  EXPECT_EQ(state.format_version(), 3u);
  EXPECT_EQ(state.config().budget(), "pure:1");
  ASSERT_TRUE(state.has_local_state());
  EXPECT_EQ(state.local_state().participant_id(), 5u);
  EXPECT_TRUE(state.local_state().algorithm_states().empty());
  EXPECT_EQ(dp::ParseLedger(state.local_state().ledger()).value().entries().size(), 0u);
}

// What the participant's algorithms and budget kept survives save and restore unchanged.
TEST(CapiStateTest, AlgorithmStatesAndTheLedgerSurviveARestart) {
  Handle p = Create(Config("pure:1"));
  v1::ParticipantState state = Save(p.get());
  (*state.mutable_local_state()->mutable_algorithm_states())["toy"] = std::string("\0\x01z", 3);
  state.mutable_local_state()->set_ledger(SpentLedger());
  Handle restored;
  ASSERT_EQ(Restore(state, &restored), FEDMF_OK) << fedmf_last_error();
  const v1::ParticipantState again = Save(restored.get());
  EXPECT_EQ(again.local_state().algorithm_states().at("toy"), std::string("\0\x01z", 3));
  EXPECT_EQ(again.local_state().ledger(), SpentLedger());
  EXPECT_EQ(dp::ParseLedger(again.local_state().ledger()).value().spent().pure_epsilon(), 0.5);
}

// A ledger needs the config's budget to be measured against; without one it is refused rather
// than dropped (the participant would forget what it spent).
TEST(CapiStateTest, RefusesALedgerWithoutABudget) {
  Handle p = Create(Config(""));
  v1::ParticipantState state = Save(p.get());
  EXPECT_TRUE(state.local_state().ledger().empty());
  state.mutable_local_state()->set_ledger(SpentLedger());
  Handle restored;
  EXPECT_EQ(Restore(state, &restored), FEDMF_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(restored, nullptr);
  EXPECT_THAT(fedmf_last_error(), AllOf(HasSubstr("local_state"), HasSubstr("no budget")));
  state.mutable_local_state()->set_participant_id(6);
  EXPECT_EQ(Restore(state, &restored), FEDMF_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(fedmf_last_error(), HasSubstr("local state of participant 6"));
}

// A version-2 blob (no local state) restores, and is saved again as version 3 with an empty one;
// a version-2 blob that claims a local state is refused.
TEST(CapiStateTest, Version2StatesStillRestore) {
  Handle p = Create(Config(""));
  ASSERT_EQ(fedmf_participant_set_rating(p.get(), 4, 2.5f), FEDMF_OK);
  v1::ParticipantState state = Save(p.get());
  state.set_format_version(2);
  state.clear_local_state();
  Handle restored;
  ASSERT_EQ(Restore(state, &restored), FEDMF_OK) << fedmf_last_error();
  EXPECT_EQ(fedmf_participant_rating_count(restored.get()), 1u);
  const v1::ParticipantState again = Save(restored.get());
  EXPECT_EQ(again.format_version(), 3u);
  EXPECT_EQ(again.local_state().participant_id(), 5u);
  EXPECT_TRUE(again.local_state().algorithm_states().empty());

  state.mutable_local_state()->set_participant_id(5);
  EXPECT_EQ(Restore(state, &restored), FEDMF_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(fedmf_last_error(), HasSubstr("needs format_version 3"));
}

TEST(CapiStateTest, RefusesAMalformedBudget) {
  const std::string bytes = Config("approx:1").SerializeAsString();
  fedmf_participant* p = nullptr;
  EXPECT_EQ(fedmf_participant_create(Bytes(bytes), bytes.size(), &p), FEDMF_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(p, nullptr);
  EXPECT_THAT(fedmf_last_error(), AllOf(HasSubstr("config"), HasSubstr("budget 'approx:1'")));
}

}  // namespace
}  // namespace fedmf
