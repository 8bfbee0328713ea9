#include "client/local_state_file.h"

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "common/algorithms/registry.h"
#include "common/util/atomic_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/client/fixed_contributor.h"
#include "tests/unit/client/test_round.h"
#include "tests/unit/common/test_files.h"

namespace fedmf::client {
namespace {

using test_util::FixedContributor;
using ::testing::AllOf;
using ::testing::HasSubstr;

class LocalStateFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::path(fedmf::testing::TestDir()) / "state").string();
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // One host per entry of `users` (a list of dense users each), every participant under a pure
  // epsilon 1 budget.
  std::vector<std::unique_ptr<ParticipantHost>> Hosts(
      const std::vector<std::vector<int32_t>>& users) const {
    std::vector<std::unique_ptr<ParticipantHost>> hosts;
    for (const std::vector<int32_t>& u : users) {
      hosts.push_back(ParticipantHost::Create(data_, u).value());
      EXPECT_TRUE(hosts.back()->SetParticipantBudget(dp::PrivacyBudget::PureDp(1)).ok());
    }
    return hosts;
  }

  // The file's state, which must exist and parse.
  v1::HostLocalState OnDisk() const {
    absl::StatusOr<std::optional<v1::HostLocalState>> state = LoadLocalState(dir_);
    EXPECT_TRUE(state.ok()) << state.status();
    EXPECT_TRUE(state.ok() && state->has_value());
    return state.ok() && state->has_value() ? **state : v1::HostLocalState();
  }

  std::string dir_;
  std::shared_ptr<const data::RatingsDataset> data_ = test_util::SmallData();
  // Each contribution costs 0.25 of the budget and counts up the state of "counter".
  const FixedContributor contributor_{algorithms::ContributionVector::Dense({1, 2}), 0.25};
};

TEST_F(LocalStateFileTest, NoDirectoryOrNoFileIsAFreshStart) {
  absl::StatusOr<std::optional<v1::HostLocalState>> none = LoadLocalState(dir_);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_FALSE(none->has_value());
  // Attach creates the missing directories and writes the (fresh) state at once.
  dir_ = (std::filesystem::path(dir_) / "a" / "b").string();
  std::vector<std::unique_ptr<ParticipantHost>> hosts = Hosts({{3, 4}});
  absl::StatusOr<std::unique_ptr<LocalStateFile>> file = LocalStateFile::Attach(dir_, hosts);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ((*file)->restored_participants(), 0);
  EXPECT_EQ((*file)->path(), LocalStatePath(dir_));
  const v1::HostLocalState saved = OnDisk();
  ASSERT_EQ(saved.participants_size(), 2);
  EXPECT_EQ(saved.participants(0).participant_id(), 4u);
  EXPECT_TRUE(saved.participants(0).algorithm_states().empty());
  EXPECT_FALSE(saved.participants(0).ledger().empty());  // an empty ledger under the budget
}

// Algorithm states and ledgers of participants spread over several hosts (as with
// --one_stream_per_user) come back into a restarted process's hosts, whatever its layout.
TEST_F(LocalStateFileTest, RestoresStatesAndLedgersAcrossARestart) {
  {
    std::vector<std::unique_ptr<ParticipantHost>> hosts = Hosts({{0}, {1, 2}});
    ASSERT_TRUE(hosts[1]->FindMutable(2)->Contribute(contributor_, "counter").ok());
    ASSERT_TRUE(hosts[1]->FindMutable(2)->Contribute(contributor_, "counter").ok());
    ASSERT_TRUE(hosts[0]->FindMutable(1)->Contribute(contributor_, "counter").ok());
    ASSERT_TRUE(LocalStateFile::Attach(dir_, hosts).ok());
  }
  std::vector<std::unique_ptr<ParticipantHost>> restarted = Hosts({{0, 1, 2}});
  absl::StatusOr<std::unique_ptr<LocalStateFile>> file = LocalStateFile::Attach(dir_, restarted);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ((*file)->restored_participants(), 3);
  Participant& two = *restarted[0]->FindMutable(2);
  EXPECT_EQ(two.ExportLocalState().algorithm_states().at("counter"), "2");
  EXPECT_EQ(two.budget()->ledger().spent().pure_epsilon(), 0.5);
  EXPECT_EQ(restarted[0]->Find(1)->budget()->ledger().spent().pure_epsilon(), 0.25);
  EXPECT_TRUE(restarted[0]->Find(3)->ExportLocalState().algorithm_states().empty());
  // The restored ledger still counts: two more contributions reach the budget, a third is refused.
  ASSERT_TRUE(two.Contribute(contributor_, "counter").ok());
  ASSERT_TRUE(two.Contribute(contributor_, "counter").ok());
  EXPECT_EQ(two.Contribute(contributor_, "counter").status().code(),
            absl::StatusCode::kResourceExhausted);
}

// A task's contributions reach the file through the host's sink before its replies are returned,
// and the file is replaced whole: no temporary file is left behind, and a temporary file left by
// a write that was killed before its rename does not disturb the next start.
TEST_F(LocalStateFileTest, TheSinkReplacesTheFileBeforeRepliesLeave) {
  std::vector<std::unique_ptr<ParticipantHost>> hosts = Hosts({test_util::AllUsers(*data_)});
  absl::StatusOr<std::unique_ptr<LocalStateFile>> file = LocalStateFile::Attach(dir_, hosts);
  ASSERT_TRUE(file.ok()) << file.status();
  const v1::ServerMessage task = test_util::ProbeTask(*data_, 10);
  const v1::RoundPlan& plan = task.task().plan();
  ASSERT_TRUE(hosts[0]->Handle(task).ok());

  const v1::HostLocalState saved = OnDisk();
  ASSERT_EQ(saved.participants_size(), data_->num_users());
  int with_state = 0;
  for (const v1::ParticipantLocalState& p : saved.participants()) {
    with_state += p.algorithm_states().contains(plan.algorithm());
  }
  EXPECT_EQ(with_state, 10);
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    names.push_back(entry.path().filename().string());
  }
  EXPECT_EQ(names, std::vector<std::string>{"local_state.pb"});

  std::ofstream(std::filesystem::path(dir_) / "local_state.pb.tmp.AbCdEf") << "torn";
  std::vector<std::unique_ptr<ParticipantHost>> restarted = Hosts({test_util::AllUsers(*data_)});
  absl::StatusOr<std::unique_ptr<LocalStateFile>> again = LocalStateFile::Attach(dir_, restarted);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(restarted[0]->ExportLocalState().SerializeAsString(), saved.SerializeAsString());
}

TEST_F(LocalStateFileTest, RefusesACorruptFileNamingIt) {
  std::filesystem::create_directories(dir_);
  ASSERT_TRUE(WriteFileAtomically(LocalStatePath(dir_), "\xff\xff garbage").ok());
  std::vector<std::unique_ptr<ParticipantHost>> hosts = Hosts({{0}});
  absl::StatusOr<std::unique_ptr<LocalStateFile>> file = LocalStateFile::Attach(dir_, hosts);
  EXPECT_EQ(file.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(file.status().message(),
              AllOf(HasSubstr(LocalStatePath(dir_)), HasSubstr("not a HostLocalState")));
  // The file is left as it was, for a person to look at.
  EXPECT_EQ(ReadFile(LocalStatePath(dir_)).value(), "\xff\xff garbage");
}

// A file that does not fit the process (other users, another version, a ledger but no budget, a
// participant listed twice) is refused, naming the file and what does not fit.
TEST_F(LocalStateFileTest, RefusesAFileThatDoesNotFit) {
  std::vector<std::unique_ptr<ParticipantHost>> hosts = Hosts({{0, 1}});
  ASSERT_TRUE(LocalStateFile::Attach(dir_, hosts).ok());
  const v1::HostLocalState good = OnDisk();
  const auto refusal = [this](const v1::HostLocalState& state,
                              std::vector<std::unique_ptr<ParticipantHost>> hosts) {
    EXPECT_TRUE(WriteFileAtomically(LocalStatePath(dir_), state.SerializeAsString()).ok());
    absl::StatusOr<std::unique_ptr<LocalStateFile>> file = LocalStateFile::Attach(dir_, hosts);
    EXPECT_FALSE(file.ok());
    EXPECT_THAT(file.status().message(), HasSubstr(LocalStatePath(dir_)));
    return std::string(file.status().message());
  };
  EXPECT_THAT(refusal(good, Hosts({{0}})), HasSubstr("participant 2 is not hosted"));
  v1::HostLocalState twice = good;
  *twice.add_participants() = good.participants(0);
  EXPECT_THAT(refusal(twice, Hosts({{0, 1}})), HasSubstr("participant 1 is listed twice"));
  v1::HostLocalState future = good;
  future.set_format_version(7);
  EXPECT_THAT(refusal(future, Hosts({{0, 1}})), HasSubstr("format version 7"));
  std::vector<std::unique_ptr<ParticipantHost>> no_budget;
  no_budget.push_back(ParticipantHost::Create(data_, {0, 1}).value());
  EXPECT_THAT(refusal(good, std::move(no_budget)), HasSubstr("no budget is set"));
}

}  // namespace
}  // namespace fedmf::client
