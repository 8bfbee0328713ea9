#include "server/checkpoint.h"

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/algorithms/dpmf_rp/updater.h"
#include "common/dp/ledger_text_format.h"
#include "common/util/atomic_file.h"
#include "fedmf/v1/federation.pb.h"
#include "gtest/gtest.h"
#include "tests/unit/participant_ids.h"
#include "tests/unit/server/test_dir.h"

namespace fedmf::server {
namespace {

class CheckpointTest : public TestDirTest {
 protected:
  static CoordinatorState State() {
    algorithms::dpmf_rp::DpmfRpConfig c;
    c.num_users = 40;
    c.num_items = 30;
    c.rank = 4;
    c.mechanism = algorithms::dpmf_rp::Mechanism::kNone;
    c.participation = 0.25;
    CoordinatorState s{"dpmf-rp",
                       algorithms::dpmf_rp::DpmfRpUpdater::Create(c).value(),
                       dp::PrivacyLedger::Create().value(),
                       77,
                       12,
                       FixedPopulation()};
    dp::LedgerEntry e;
    e.round = 0;
    e.mechanism = "pbm";
    e.participants = 10;
    e.n_min = 6;
    e.rdp.assign(s.ledger.orders().size(), 0.25);
    EXPECT_TRUE(s.ledger.Append(e).ok());
    return s;
  }
};

TEST_F(CheckpointTest, NoCheckpointYetIsNotAnError) {
  auto loaded = LoadCheckpoint(dir_);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_FALSE(loaded->has_value());
}

TEST_F(CheckpointTest, RoundTripsUpdaterLedgerAndSeed) {
  CoordinatorState state = State();
  const std::vector<uint64_t> zero(state.updater->Plan().value().length(), 0);
  ASSERT_TRUE(state.updater->ApplySum(zero, test_util::ParticipantIds(10)).ok());  // round 1
  ASSERT_TRUE(SaveCheckpoint(dir_, state).ok());
  auto loaded = LoadCheckpoint(dir_);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_TRUE(loaded->has_value());
  const CoordinatorState& back = **loaded;
  EXPECT_EQ(back.algorithm, "dpmf-rp");
  EXPECT_EQ(back.updater->round(), 1);
  EXPECT_EQ(back.updater->SerializeState().value(), state.updater->SerializeState().value());
  EXPECT_EQ(dp::SerializeLedger(back.ledger), dp::SerializeLedger(state.ledger));
  EXPECT_EQ(back.ledger.entries().size(), 1u);
  EXPECT_EQ(back.sampling_seed, 77u);
  EXPECT_EQ(back.total_rounds, 12);
}

TEST_F(CheckpointTest, ACorruptFileIsDataLossNamingIt) {
  ASSERT_TRUE(SaveCheckpoint(dir_, State()).ok());
  ASSERT_TRUE(WriteFileAtomically(CheckpointPath(dir_), "\xff\xff garbage").ok());
  auto loaded = LoadCheckpoint(dir_);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(loaded.status().message().find("checkpoint.pb"), absl::string_view::npos);
}

TEST_F(CheckpointTest, AnAlteredLedgerIsRefused) {
  CoordinatorState state = State();
  ASSERT_TRUE(SaveCheckpoint(dir_, state).ok());
  v1::CoordinatorCheckpoint c;
  ASSERT_TRUE(c.ParseFromString(ReadFile(CheckpointPath(dir_)).value()));
  std::string ledger = c.ledger();
  ledger[ledger.find("participants=10")] = 'P';
  c.set_ledger(ledger);
  ASSERT_TRUE(WriteFileAtomically(CheckpointPath(dir_), c.SerializeAsString()).ok());
  EXPECT_EQ(LoadCheckpoint(dir_).status().code(), absl::StatusCode::kDataLoss);
}

// A checkpoint written before the ledger's version 2 resumes, its rounds read as per-user releases.
TEST_F(CheckpointTest, ACheckpointWithAVersion1LedgerLoads) {
  ASSERT_TRUE(SaveCheckpoint(dir_, State()).ok());
  v1::CoordinatorCheckpoint c;
  ASSERT_TRUE(c.ParseFromString(ReadFile(CheckpointPath(dir_)).value()));
  std::string ledger = "fedmf-privacy-ledger v1\norders";
  std::vector<std::string> rdp;
  for (double order : dp::DefaultOrders()) {
    absl::StrAppend(&ledger, " ", absl::StrFormat("%.17g", order));
    rdp.push_back("0.25");
  }
  absl::StrAppend(&ledger, "\nentry round=0 mechanism=pbm participants=10 n_min=6 params= rdp=",
                  absl::StrJoin(rdp, ","), "\n");
  absl::StrAppend(&ledger, "end entries=1 fnv1a64=", absl::StrFormat("%016x", dp::Fnv1a64(ledger)),
                  "\n");
  c.set_ledger(ledger);
  ASSERT_TRUE(WriteFileAtomically(CheckpointPath(dir_), c.SerializeAsString()).ok());
  auto loaded = LoadCheckpoint(dir_);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_TRUE(loaded->has_value());
  const dp::PrivacyLedger& back = (*loaded)->ledger;
  ASSERT_EQ(back.entries().size(), 1u);
  EXPECT_EQ(back.entries()[0].unit, dp::PrivacyUnit::kUser);
  EXPECT_EQ(back.Report(1e-5)->rdp_order2, 0.25);
}

TEST_F(CheckpointTest, ARoundCountThatDisagreesWithTheUpdaterIsRefused) {
  ASSERT_TRUE(SaveCheckpoint(dir_, State()).ok());
  v1::CoordinatorCheckpoint c;
  ASSERT_TRUE(c.ParseFromString(ReadFile(CheckpointPath(dir_)).value()));
  c.set_rounds_done(5);
  ASSERT_TRUE(WriteFileAtomically(CheckpointPath(dir_), c.SerializeAsString()).ok());
  EXPECT_EQ(LoadCheckpoint(dir_).status().code(), absl::StatusCode::kDataLoss);
}

// The population is written with the rest (a fixed-population run restarts with it); no
// registered algorithm asks for one yet, so a checkpoint of DPMF-RP, which samples its cohorts,
// holding one is inconsistent.
TEST_F(CheckpointTest, APopulationIsSavedAndRefusedForASampledAlgorithm) {
  CoordinatorState state = State();
  state.population = FixedPopulation::Restore({2, 5, 9}).value();
  ASSERT_TRUE(SaveCheckpoint(dir_, state).ok());
  v1::CoordinatorCheckpoint c;
  ASSERT_TRUE(c.ParseFromString(ReadFile(CheckpointPath(dir_)).value()));
  EXPECT_EQ(std::vector<uint32_t>(c.population().begin(), c.population().end()),
            (std::vector<uint32_t>{2, 5, 9}));
  const auto loaded = LoadCheckpoint(dir_);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(loaded.status().message().find("fixed population"), absl::string_view::npos);
}

}  // namespace
}  // namespace fedmf::server
