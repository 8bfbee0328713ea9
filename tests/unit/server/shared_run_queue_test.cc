#include "server/shared_run_queue.h"

#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/run_queue.h"

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
