// The options of every algorithm that can start a run (options.h): the files shipped in configs/
// parse, a field the algorithm does not have and a value out of range are errors naming them,
// --set reaches nested fields, and every field is documented.
#include "common/algorithms/options.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/algorithms/new_run.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace fedmf::algorithms {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// The algorithms of fedmf (the tests of new_run_test.cc register others, "new-run-test-*").
std::vector<std::string> Algorithms() {
  std::vector<std::string> names;
  for (const std::string& name : NewRunAlgorithms()) {
    if (!absl::StartsWith(name, "new-run-test-")) names.push_back(name);
  }
  return names;
}

const Descriptor& OptionsType(const std::string& algorithm) {
  return *RegisteredDefaultOptions(algorithm).value()->GetDescriptor();
}

TEST(OptionsTest, EveryAlgorithmShipsConfigFilesThatParse) {
  ASSERT_GE(Algorithms().size(), 12u);
  for (const std::string& algorithm : Algorithms()) {
    const std::filesystem::path dir = std::filesystem::path(FEDMF_CONFIGS_DIR) / algorithm;
    int files = 0;
    if (std::filesystem::is_directory(dir)) {
      for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".textproto") continue;
        ++files;
        absl::StatusOr<std::unique_ptr<Message>> options =
            ResolveOptions(algorithm, entry.path().string(), {});
        EXPECT_TRUE(options.ok()) << options.status();
      }
    }
    EXPECT_GE(files, 1) << algorithm << " ships no configs/" << algorithm << "/*.textproto";
  }
}

TEST(OptionsTest, AFieldTheAlgorithmDoesNotHaveIsAnErrorNamingIt) {
  const std::string file = testing::TempDir() + "/unknown.textproto";
  std::ofstream(file) << "# a comment\n\nno_such_option: 1\n";
  for (const std::string& algorithm : Algorithms()) {
    absl::Status status = ResolveOptions(algorithm, "", {"no_such_option=1"}).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << algorithm;
    EXPECT_THAT(status.message(), HasSubstr("--set no_such_option=1: "));
    EXPECT_THAT(status.message(), HasSubstr("has no field 'no_such_option'"));
    status = ResolveOptions(algorithm, file, {}).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << algorithm;
    EXPECT_THAT(status.message(), HasSubstr(absl::StrCat(file, ":3:")));
    EXPECT_THAT(status.message(), HasSubstr("\"no_such_option\""));
  }
  EXPECT_EQ(ResolveOptions("dpmf-rp", file + ".absent", {}).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(ResolveOptions("no-such-algorithm", "", {}).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

// OptionsFromText reads the whole options as OptionsText prints them (a field left out is zero,
// so every resolved option, zeros included, reads back), then the overrides; an error names the
// text's line and column.
TEST(OptionsTest, TheTextOfResolvedOptionsReadsBackWhole) {
  for (const std::string& algorithm : Algorithms()) {
    std::unique_ptr<Message> resolved = ResolveOptions(algorithm, "", {}).value();
    absl::StatusOr<std::unique_ptr<Message>> read =
        OptionsFromText(algorithm, OptionsText(*resolved), "recorded");
    ASSERT_TRUE(read.ok()) << algorithm << ": " << read.status();
    EXPECT_EQ(OptionsText(**read), OptionsText(*resolved)) << algorithm;
  }
  // contribution_clip at 0 is left out of the text and stays 0, not its default.
  std::unique_ptr<Message> zero =
      ResolveOptions("dpmf-rp", "", {"mechanism=none", "contribution_clip=0"}).value();
  std::unique_ptr<Message> read =
      OptionsFromText("dpmf-rp", OptionsText(*zero), "recorded", {"rank=5"}).value();
  EXPECT_THAT(OptionsText(*read), Not(HasSubstr("contribution_clip")));
  EXPECT_THAT(OptionsText(*read), HasSubstr("rank: 5"));
  const absl::Status status =
      OptionsFromText("dpmf-rp", "rank: 3\n  no_such_option: 1", "recorded").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("recorded:2:"));
  EXPECT_THAT(status.message(), HasSubstr("\"no_such_option\""));
}

// A field another algorithm has is named with that algorithm, for the user who gave it to the
// wrong one.
TEST(OptionsTest, AFieldOfAnotherAlgorithmNamesThatAlgorithm) {
  int checked = 0;
  for (const std::string& algorithm : Algorithms()) {
    for (const std::string& other : Algorithms()) {
      const Descriptor& theirs = OptionsType(other);
      for (int i = 0; i < theirs.field_count(); ++i) {
        const std::string name = theirs.field(i)->name();
        if (OptionsType(algorithm).FindFieldByName(name) != nullptr) continue;
        const absl::Status status =
            ResolveOptions(algorithm, "", {absl::StrCat(name, "=1")}).status();
        EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
        EXPECT_THAT(status.message(), HasSubstr(absl::StrCat("has no field '", name, "'")));
        EXPECT_THAT(status.message(), HasSubstr("(an option of "));
        EXPECT_THAT(status.message(), HasSubstr(other));
        ++checked;
        break;
      }
    }
  }
  EXPECT_GT(checked, 0);
}

// The run of `algorithm` on a small population with `overrides`, as the coordinator starts it.
absl::Status StartWith(const std::string& algorithm, const std::vector<std::string>& overrides) {
  absl::StatusOr<std::unique_ptr<Message>> options = ResolveOptions(algorithm, "", overrides);
  if (!options.ok()) return options.status();
  const RunSettings settings{.num_users = 40,
                             .num_items = 30,
                             .rounds = RegisteredNewRunDefaults(algorithm).rounds,
                             .epsilon = 1,
                             .seed = 1};
  return StartNewRun(algorithm, settings, **options).status();
}

// A value out of range is refused when the run starts, naming the option and the value; the
// defaults start. One option per algorithm, nested where the algorithm nests.
TEST(OptionsTest, AValueOutOfRangeIsAnErrorNamingItsFieldAndValue) {
  const std::vector<std::pair<std::string, std::string>> out_of_range = {
      {"dp-als", "rank=0"},           {"dp-popularity", "max_items=-2"},
      {"dpmf-rp", "rank=0"},          {"hdpmf", "rank=0"},
      {"hfl-sgdmf", "sgd.rank=0"},    {"ldp-gd", "rank=0"},
      {"ldp-gd-dr", "rank=0"},        {"lfl-sgdmf", "rank=0"},
      {"privirec", "frac_bits=-1"}, {"privirec-k", "rank=0"},
      {"probe", "report_epsilon=-2"}, {"vfl-sgdmf", "sgd.rank=0"}};
  std::vector<std::string> covered;
  for (const auto& [algorithm, override] : out_of_range) {
    covered.push_back(algorithm);
    const absl::Status status = StartWith(algorithm, {override});
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << algorithm << ": " << status;
    EXPECT_THAT(status.message(), HasSubstr(override)) << algorithm;
  }
  EXPECT_EQ(covered, Algorithms());
}

// --set reaches a nested field by its dotted path (vfl-sgdmf's and hfl-sgdmf's shared DP-SGD
// block), and only a field that exists there.
TEST(OptionsTest, OverridesReachNestedFields) {
  absl::StatusOr<std::unique_ptr<Message>> options =
      ResolveOptions("vfl-sgdmf", "", {"sgd.rank=7", "sgd.learning_rate=0.5"});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_THAT(OptionsText(**options), HasSubstr("sgd { rank: 7 "));
  EXPECT_THAT(OptionsText(**options), HasSubstr("learning_rate: 0.5"));
  const absl::Status status = ResolveOptions("vfl-sgdmf", "", {"sgd.nope=1"}).status();
  EXPECT_THAT(status.message(), HasSubstr("has no field 'nope'"));
  EXPECT_THAT(ResolveOptions("vfl-sgdmf", "", {"sgd=1"}).status().message(),
              HasSubstr("is a message: set its fields"));
  EXPECT_THAT(ResolveOptions("vfl-sgdmf", "", {"parties.x=1"}).status().message(),
              HasSubstr("field 'parties' has no fields"));
}

// Every option says what it is and its valid range (the .proto comment `describe` prints), and
// the defaults printed parse back.
TEST(OptionsTest, EveryOptionIsDocumented) {
  for (const std::string& algorithm : Algorithms()) {
    absl::StatusOr<std::string> described = DescribeOptions(algorithm);
    ASSERT_TRUE(described.ok()) << described.status();
    const std::vector<std::string> lines = absl::StrSplit(*described, '\n');
    for (size_t i = 1; i + 1 < lines.size(); ++i) {
      if (!absl::StartsWith(lines[i], "  ") || absl::StartsWith(lines[i], "      ")) continue;
      EXPECT_TRUE(absl::StartsWith(lines[i + 1], "      "))
          << algorithm << ": option without documentation: " << lines[i];
    }
    const Message& defaults = *RegisteredDefaultOptions(algorithm).value();
    const Descriptor& type = *defaults.GetDescriptor();
    for (int i = 0; i < type.field_count(); ++i) {
      EXPECT_THAT(*described, HasSubstr(absl::StrCat("  ", type.field(i)->name())));
    }
    std::unique_ptr<Message> parsed(defaults.New());
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(OptionsText(defaults), parsed.get()));
    EXPECT_EQ(parsed->SerializeAsString(), defaults.SerializeAsString()) << algorithm;
  }
}

}  // namespace
}  // namespace fedmf::algorithms
