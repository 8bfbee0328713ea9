#include <string>

#include "absl/strings/str_cat.h"
#include "crypto/secagg/stages.h"
#include "fedmf/v1/secagg.pb.h"
#include "gtest/gtest.h"

namespace fedmf::secagg {
namespace {

// Logs, Status output and scripts (tools/run-demo.sh, tools/load-test.sh, runtime_test.sh) parse
// these strings: a change here must be a deliberate one.
TEST(SecAggStagesTest, NamesAreTheOnesLogsAndScriptsParse) {
  std::string names;
  for (const StageNames& s : kStages) {
    absl::StrAppend(&names, s.display, " ", s.message, " ", s.duration_key, "\n");
  }
  EXPECT_EQ(names,
            "AdvertiseKeys advertise_keys advertise_s\n"
            "ShareKeys share_keys share_keys_s\n"
            "MaskedInput masked_input masked_input_s\n"
            "ConsistencyCheck consistency_check consistency_s\n"
            "Unmasking unmasking unmasking_s\n");
}

TEST(SecAggStagesTest, EveryStageIsNamedConsistently) {
  for (const StageNames& s : kStages) {
    EXPECT_EQ(&NamesOf(s.stage), &s);
    EXPECT_STREQ(ServerStageName(s.stage), s.display);
    EXPECT_EQ(s.duration_key, absl::StrCat(s.key, "_s"));
    // The message name is the oneof field of the clients' answers in this stage.
    EXPECT_NE(v1::secagg::ClientToServer::descriptor()->FindFieldByName(s.message), nullptr)
        << s.message;
  }
}

TEST(SecAggStagesTest, EndsHaveDisplayNamesOnly) {
  EXPECT_STREQ(ServerStageName(ServerStage::kCompleted), "Completed");
  EXPECT_STREQ(ServerStageName(ServerStage::kAborted), "Aborted");
}

}  // namespace
}  // namespace fedmf::secagg
