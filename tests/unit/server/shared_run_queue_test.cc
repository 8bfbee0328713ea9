#include "server/shared_run_queue.h"

#include <filesystem>
#include <memory>
#include <string>

#include "common/algorithms/new_run.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/model_store.h"
#include "server/run_queue.h"
#include "server/run_spec.h"

namespace fedmf::server {
namespace {

using ::testing::HasSubstr;

v1::RunSpec Spec() {
  v1::RunSpec spec;
  spec.set_algorithm("dpmf-rp");
  spec.set_rounds(2);
  spec.set_num_users(40);
  spec.set_num_items(30);
  return spec;
}

SharedRunQueue InMemory(int64_t data_users = 0, int32_t data_items = 0) {
  return SharedRunQueue(RunQueue::Open("").value(), data_users, data_items);
}

TEST(SharedRunQueueTest, QueuesAValidRunWithTheSubmittersIdentity) {
  SharedRunQueue runs = InMemory();
  testing::internal::CaptureStderr();
  absl::StatusOr<v1::RunRecord> record = runs.Submit(Spec(), "admin");
  const std::string log = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(record->id(), 1);
  EXPECT_EQ(record->submitted_by(), "admin");
  EXPECT_THAT(log, HasSubstr("event=run_submitted id=1 run_id=run-1 algorithm=dpmf-rp "
                             "identity=admin run_spec="));
  ASSERT_EQ(runs.List().runs_size(), 1);
  EXPECT_EQ(runs.List().runs(0).state(), v1::RUN_STATE_QUEUED);
}

TEST(SharedRunQueueTest, RefusesAnInvalidRunNamingEveryBadFieldAndValue) {
  SharedRunQueue runs = InMemory();
  v1::RunSpec spec = Spec();
  spec.set_rounds(0);
  spec.set_participation(1.5);
  absl::StatusOr<v1::RunRecord> record = runs.Submit(spec, "admin");
  EXPECT_EQ(record.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(record.status().message(), HasSubstr("submitted run: "));
  EXPECT_THAT(record.status().message(), HasSubstr("rounds=0 (need >= 1)"));
  EXPECT_THAT(record.status().message(), HasSubstr("participation=1.5 (need (0, 1])"));
  spec = Spec();
  spec.set_algorithm("no-such-algorithm");
  record = runs.Submit(spec, "admin");
  EXPECT_EQ(record.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(record.status().message(), HasSubstr("no-such-algorithm"));
  spec = Spec();
  spec.add_set("no_such_field=1");
  record = runs.Submit(spec, "admin");
  EXPECT_EQ(record.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(record.status().message(), HasSubstr("no_such_field"));
  // Whole options that parse but leave a field at zero (not its default) only fail at the run's
  // start: that is tried at submission.
  spec = Spec();
  spec.set_options("mechanism: MECHANISM_NONE rank: 4");
  record = runs.Submit(spec, "admin");
  EXPECT_EQ(record.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(record.status().message(), HasSubstr("submitted run: "));
  EXPECT_THAT(record.status().message(), HasSubstr("projection"));
  EXPECT_EQ(runs.List().runs_size(), 0);
}

// The store holds version 1, a final dpmf-rp model of Spec()'s shape at rank 4.
std::shared_ptr<ModelStore> StoreWithAModel() {
  std::shared_ptr<ModelStore> store = ModelStore::Open({}).value();
  v1::RunSpec published = Spec();
  published.add_set("rank=4");
  absl::StatusOr<algorithms::NewRun> run = algorithms::StartNewRun(
      "dpmf-rp", RunSettingsOf(published, 40, 30), *RunOptions(published).value());
  EXPECT_TRUE(run.ok()) << run.status();
  v1::ModelVersion info;
  info.set_run_id("run-0");
  info.set_final(true);
  EXPECT_TRUE(store->Publish(info, run->updater->Plan().value()).ok());
  return store;
}

// A warm start is checked at submission when the store is what the run will start from; with a
// run ahead of it, whose model it may mean, only when it starts.
TEST(SharedRunQueueTest, AWarmStartsModelIsCheckedWhenNoRunIsAhead) {
  SharedRunQueue runs(RunQueue::Open("").value(), 0, 0, StoreWithAModel());
  v1::RunSpec warm = Spec();
  warm.add_set("rank=4");
  warm.set_start_from_version(2);
  absl::StatusOr<v1::RunRecord> record = runs.Submit(warm, "admin");
  EXPECT_EQ(record.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(record.status().message(),
              HasSubstr("submitted run: start_from_version=2: the model store holds no such "
                        "version (it keeps versions 1)"));
  warm.set_start_from_version(1);
  warm.set_set(0, "rank=6");
  record = runs.Submit(warm, "admin");
  EXPECT_EQ(record.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(record.status().message(), HasSubstr("this run needs 30 x 6"));
  warm.set_set(0, "rank=4");
  ASSERT_TRUE(runs.Submit(warm, "admin").ok());
  warm.set_start_from_version(2);  // run 1 is ahead: it may publish version 2
  EXPECT_TRUE(runs.Submit(warm, "admin").ok());
}

TEST(SharedRunQueueTest, APopulationLeftToTheDataNeedsData) {
  v1::RunSpec spec = Spec();
  spec.clear_num_users();
  SharedRunQueue without_data = InMemory();
  absl::StatusOr<v1::RunRecord> record = without_data.Submit(spec, "");
  EXPECT_EQ(record.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(record.status().message(), HasSubstr("num_users=0, num_items=30 (need both > 0"));
  SharedRunQueue with_data = InMemory(40, 30);
  EXPECT_TRUE(with_data.Submit(spec, "").ok());
}

TEST(SharedRunQueueTest, CancelAndTheServiceLoopsCalls) {
  SharedRunQueue runs = InMemory();
  ASSERT_TRUE(runs.Submit(Spec(), "admin").ok());
  ASSERT_TRUE(runs.Submit(Spec(), "admin").ok());
  absl::StatusOr<std::optional<v1::RunRecord>> next = runs.Next();
  ASSERT_TRUE(next.ok() && next->has_value());
  EXPECT_EQ((*next)->id(), 1);
  EXPECT_FALSE(runs.CancelRequested(1));
  testing::internal::CaptureStderr();
  absl::StatusOr<v1::RunRecord> cancelled = runs.Cancel(1, "admin");
  EXPECT_EQ(runs.Cancel(5, "admin").status().code(), absl::StatusCode::kNotFound);
  const std::string log = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  EXPECT_TRUE(runs.CancelRequested(1));
  EXPECT_THAT(log, HasSubstr("event=run_cancelled id=1 identity=admin state=running"));
  EXPECT_THAT(log, HasSubstr("event=run_cancelled id=5 identity=admin status=\"NOT_FOUND"));
  ASSERT_TRUE(runs.Finish(1, v1::RUN_STATE_CANCELLED, "").ok());
  next = runs.Next();
  ASSERT_TRUE(next.ok() && next->has_value());
  EXPECT_EQ((*next)->id(), 2);
}

}  // namespace
}  // namespace fedmf::server
