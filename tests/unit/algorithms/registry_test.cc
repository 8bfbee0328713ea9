#include "common/algorithms/registry.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/algorithms/dpmf_rp/config.h"
#include "common/algorithms/dpmf_rp/updater.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/algorithms/dpmf_rp/test_util.h"

namespace fedmf::algorithms {
namespace {

using ::testing::HasSubstr;

// A definition whose factories answer with a status naming it, so a test sees which one ran.
AlgorithmDefinition Fake(absl::string_view name) {
  const std::string tag(name);
  return {.name = tag,
          .doc = absl::StrCat("fake algorithm ", tag),
          .hosting = Hosting::kUsers,
          .ranking = {.top_n = 20, .relevance_threshold = 1},
          .make_contributor =
              [tag](const v1::RoundPlan&) -> absl::StatusOr<std::unique_ptr<Contributor>> {
            return absl::UnimplementedError(absl::StrCat(tag, " contributor"));
          },
          .restore_updater = [tag](absl::string_view) -> absl::StatusOr<std::unique_ptr<Updater>> {
            return absl::UnimplementedError(absl::StrCat(tag, " restore"));
          }};
}

TEST(AlgorithmRegistryTest, FindsDpmfRpWithThePapersRanking) {
  absl::StatusOr<const AlgorithmDefinition*> dpmf_rp = FindAlgorithm("dpmf-rp");
  ASSERT_TRUE(dpmf_rp.ok()) << dpmf_rp.status();
  EXPECT_EQ((*dpmf_rp)->name, dpmf_rp::kAlgorithmName);
  EXPECT_THAT((*dpmf_rp)->doc, HasSubstr("DPMF-RP"));
  EXPECT_EQ((*dpmf_rp)->ranking.top_n, metrics::kDpmfRpRanking.top_n);
  EXPECT_EQ((*dpmf_rp)->ranking.relevance_threshold, metrics::kDpmfRpRanking.relevance_threshold);
}

TEST(AlgorithmRegistryTest, UnknownNameIsNotFoundListingTheKnownOnes) {
  const absl::Status unknown = FindAlgorithm("no-such-algorithm").status();
  EXPECT_EQ(unknown.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(unknown.message(), HasSubstr("unknown algorithm 'no-such-algorithm' (known: "));
  EXPECT_THAT(unknown.message(), HasSubstr("dpmf-rp"));
  v1::RoundPlan plan;
  plan.set_algorithm("no-such-algorithm");
  EXPECT_EQ(MakeContributor(plan).status(), unknown);
  EXPECT_EQ(RestoreUpdater("no-such-algorithm", "").status(), unknown);
}

TEST(AlgorithmRegistryTest, DispatchesByName) {
  ASSERT_TRUE(RegisterAlgorithm(Fake("registry-test-dispatch")).ok());
  v1::RoundPlan plan;
  plan.set_algorithm("registry-test-dispatch");
  EXPECT_EQ(MakeContributor(plan).status(),
            absl::UnimplementedError("registry-test-dispatch contributor"));
  EXPECT_EQ(RestoreUpdater("registry-test-dispatch", "").status(),
            absl::UnimplementedError("registry-test-dispatch restore"));
  // DPMF-RP's own factories answer for its name.
  const std::unique_ptr<dpmf_rp::DpmfRpUpdater> updater =
      dpmf_rp::DpmfRpUpdater::Create(
          dpmf_rp::testing::SmallConfig(dpmf_rp::Mechanism::kNone, dpmf_rp::Projection::kNone))
          .value();
  const std::string state = updater->SerializeState().value();
  absl::StatusOr<std::unique_ptr<Updater>> restored = RestoreUpdater("dpmf-rp", state);
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ((*restored)->SerializeState().value(), state);
  EXPECT_TRUE(MakeContributor(updater->Plan().value()).ok());
}

TEST(AlgorithmRegistryTest, RefusesANameRegisteredTwice) {
  ASSERT_TRUE(RegisterAlgorithm(Fake("registry-test-twice")).ok());
  const absl::Status again = RegisterAlgorithm(Fake("registry-test-twice"));
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(again.message(), "algorithm 'registry-test-twice' is registered twice");
  EXPECT_EQ(RegisterAlgorithm(Fake("dpmf-rp")).code(), absl::StatusCode::kAlreadyExists);
  // The first registration stays.
  EXPECT_EQ(FindAlgorithm("registry-test-twice").value()->doc,
            "fake algorithm registry-test-twice");
}

TEST(AlgorithmRegistryTest, RegistrarAbortsNamingADuplicate) {
  EXPECT_DEATH(AlgorithmRegistrar{Fake("dpmf-rp")},
               "ALREADY_EXISTS: algorithm 'dpmf-rp' is registered twice");
}

TEST(AlgorithmRegistryTest, RefusesIncompleteDefinitions) {
  const auto refused = [](AlgorithmDefinition d) {
    return RegisterAlgorithm(std::move(d)).code() == absl::StatusCode::kInvalidArgument;
  };
  AlgorithmDefinition d = Fake("");
  EXPECT_TRUE(refused(d));
  d = Fake("registry-test-incomplete");
  d.doc.clear();
  EXPECT_TRUE(refused(d));
  d = Fake("registry-test-incomplete");
  d.ranking.top_n = 0;
  EXPECT_TRUE(refused(d));
  d = Fake("registry-test-incomplete");
  d.make_contributor = nullptr;
  EXPECT_TRUE(refused(d));
  EXPECT_EQ(FindAlgorithm("registry-test-incomplete").status().code(), absl::StatusCode::kNotFound);
}

// No updater is allowed: such an algorithm only contributes, and its restore is refused clearly.
TEST(AlgorithmRegistryTest, AcceptsAContributorOnlyAlgorithm) {
  AlgorithmDefinition d = Fake("registry-test-no-updater");
  d.restore_updater = nullptr;
  ASSERT_TRUE(RegisterAlgorithm(std::move(d)).ok());
  const AlgorithmDefinition* found = FindAlgorithm("registry-test-no-updater").value();
  EXPECT_TRUE(found->contributor_only());
  EXPECT_FALSE(FindAlgorithm("dpmf-rp").value()->contributor_only());
  v1::RoundPlan plan;
  plan.set_algorithm("registry-test-no-updater");
  EXPECT_EQ(MakeContributor(plan).status(),
            absl::UnimplementedError("registry-test-no-updater contributor"));
  const absl::Status restore = RestoreUpdater("registry-test-no-updater", "").status();
  EXPECT_EQ(restore.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(restore.message(), HasSubstr("contributor-only"));
  EXPECT_TRUE(FindAlgorithm("federated-evaluation").value()->contributor_only());
  // --algorithm names only algorithms that train.
  const absl::Status training = FindTrainingAlgorithm("registry-test-no-updater").status();
  EXPECT_EQ(training.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(training.message(), HasSubstr("unknown algorithm 'registry-test-no-updater'"));
  EXPECT_THAT(training.message(), ::testing::Not(HasSubstr("federated-evaluation")));
  EXPECT_EQ(FindTrainingAlgorithm("dpmf-rp").value(), FindAlgorithm("dpmf-rp").value());
}

TEST(AlgorithmRegistryTest, ListsAlgorithmsByNameWithTheirDocLines) {
  ASSERT_TRUE(RegisterAlgorithm(Fake("registry-test-a-longer-name")).ok());
  std::vector<std::string> names;
  for (const AlgorithmDefinition* d : RegisteredAlgorithms()) names.push_back(d->name);
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_THAT(names, ::testing::IsSupersetOf({"dpmf-rp", "registry-test-a-longer-name"}));

  // One line per algorithm with an updater (not the federated evaluation's, which --algorithm
  // cannot name), docs aligned after the longest name.
  const std::vector<std::string> lines =
      absl::StrSplit(DescribeAlgorithms(), '\n', absl::SkipEmpty());
  size_t trainable = 0;
  for (const AlgorithmDefinition* d : RegisteredAlgorithms()) trainable += !d->contributor_only();
  ASSERT_EQ(lines.size(), trainable);
  EXPECT_THAT(DescribeAlgorithms(), ::testing::Not(HasSubstr("federated-evaluation")));
  const std::string dpmf_rp_doc = FindAlgorithm("dpmf-rp").value()->doc;
  const size_t doc_column = std::string("  registry-test-a-longer-name  ").size();
  EXPECT_THAT(lines,
              ::testing::Contains("  dpmf-rp" + std::string(doc_column - 9, ' ') + dpmf_rp_doc));
  EXPECT_THAT(lines, ::testing::Contains("  registry-test-a-longer-name  fake algorithm "
                                         "registry-test-a-longer-name"));
}

}  // namespace
}  // namespace fedmf::algorithms
