#include "server/model_store.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/util/atomic_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/server/test_dir.h"

namespace fedmf::server {
namespace {

class ModelStoreTest : public TestDirTest {
 protected:
  std::unique_ptr<ModelStore> OpenStore(int keep = 3) {
    absl::StatusOr<std::unique_ptr<ModelStore>> store =
        ModelStore::Open({.dir = dir_, .keep = keep});
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }

  static v1::RoundPlan Model(int64_t round) {
    v1::RoundPlan plan;
    plan.set_round(round);
    plan.set_algorithm("dpmf-rp");
    plan.set_length(1000 + round);
    return plan;
  }
  static v1::ModelVersion Info(int64_t round, bool final, const std::string& run = "run-a") {
    v1::ModelVersion info;
    info.set_run_id(run);
    info.set_round(round);
    info.set_algorithm("dpmf-rp");
    info.set_final(final);
    return info;
  }
  std::string FileOf(int64_t version) const {
    char name[32];
    std::snprintf(name, sizeof(name), "model-%06lld.pb", static_cast<long long>(version));
    return (std::filesystem::path(dir_) / name).string();
  }
};

TEST_F(ModelStoreTest, PublishedVersionsAreNumberedHashedAndFound) {
  std::unique_ptr<ModelStore> store = OpenStore();
  EXPECT_EQ(store->Latest(), nullptr);
  absl::StatusOr<v1::ModelVersion> first = store->Publish(Info(5, false), Model(5));
  absl::StatusOr<v1::ModelVersion> second = store->Publish(Info(10, true), Model(10));
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->version(), 1);
  EXPECT_EQ(second->version(), 2);
  EXPECT_EQ(second->sha256().size(), 32u);
  EXPECT_NE(first->sha256(), second->sha256());
  ASSERT_NE(store->Latest(), nullptr);
  EXPECT_EQ(store->Latest()->version.version(), 2);
  v1::RoundPlan parsed;
  ASSERT_TRUE(parsed.ParseFromString(store->Find(1)->model));
  EXPECT_EQ(parsed.round(), 5);
  EXPECT_EQ(store->Find(1)->model.size(), first->size_bytes());
  EXPECT_EQ(store->Find(3), nullptr);
}

TEST_F(ModelStoreTest, RepublishingTheNewestModelReturnsItsVersion) {
  std::unique_ptr<ModelStore> store = OpenStore();
  ASSERT_TRUE(store->Publish(Info(10, true), Model(10)).ok());
  absl::StatusOr<v1::ModelVersion> again = store->Publish(Info(10, true), Model(10));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->version(), 1);
  // The same model from another run is a new publication.
  absl::StatusOr<v1::ModelVersion> other = store->Publish(Info(10, true, "run-b"), Model(10));
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->version(), 2);
}

TEST_F(ModelStoreTest, AReopenedStoreServesWhatWasPublishedAndNumbersOn) {
  {
    std::unique_ptr<ModelStore> store = OpenStore();
    ASSERT_TRUE(store->Publish(Info(3, false), Model(3)).ok());
    ASSERT_TRUE(store->Publish(Info(6, true), Model(6)).ok());
  }
  std::unique_ptr<ModelStore> store = OpenStore();
  ASSERT_NE(store->Latest(), nullptr);
  EXPECT_EQ(store->Latest()->version.version(), 2);
  EXPECT_TRUE(store->Latest()->version.final());
  absl::StatusOr<v1::ModelVersion> next = store->Publish(Info(2, false, "run-b"), Model(2));
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->version(), 3);
}

TEST_F(ModelStoreTest, RetentionKeepsTheNewestAndTheNewestFinalModel) {
  std::unique_ptr<ModelStore> store = OpenStore(/*keep=*/2);
  ASSERT_TRUE(store->Publish(Info(1, false), Model(1)).ok());                // 1: dropped
  ASSERT_TRUE(store->Publish(Info(9, true), Model(9)).ok());                 // 2: newest final
  ASSERT_TRUE(store->Publish(Info(1, false, "run-b"), Model(101)).ok());     // 3: dropped
  ASSERT_TRUE(store->Publish(Info(2, false, "run-b"), Model(102)).ok());     // 4
  ASSERT_TRUE(store->Publish(Info(3, false, "run-b"), Model(103)).ok());     // 5
  EXPECT_EQ(store->Find(1), nullptr);
  EXPECT_NE(store->Find(2), nullptr);
  EXPECT_EQ(store->Find(3), nullptr);
  EXPECT_NE(store->Find(4), nullptr);
  EXPECT_NE(store->Find(5), nullptr);
  EXPECT_EQ(store->Report().versions(), 3);
  EXPECT_EQ(store->Report().latest().version(), 5);
  EXPECT_FALSE(std::filesystem::exists(FileOf(1)));
  EXPECT_FALSE(std::filesystem::exists(FileOf(3)));
  EXPECT_TRUE(std::filesystem::exists(FileOf(2)));
  EXPECT_TRUE(std::filesystem::exists(FileOf(5)));
}

TEST_F(ModelStoreTest, ACorruptedFileStopsTheOpenNamingIt) {
  {
    std::unique_ptr<ModelStore> store = OpenStore();
    ASSERT_TRUE(store->Publish(Info(4, true), Model(4)).ok());
  }
  absl::StatusOr<std::string> bytes = ReadFile(FileOf(1));
  ASSERT_TRUE(bytes.ok());
  // Flip a bit of the model's last byte: the file still parses, the hash no longer matches.
  (*bytes)[bytes->size() - 1] ^= 0x01;
  ASSERT_TRUE(WriteFileAtomically(FileOf(1), *bytes).ok());
  absl::StatusOr<std::unique_ptr<ModelStore>> reopened = ModelStore::Open({.dir = dir_, .keep = 3});
  ASSERT_FALSE(reopened.ok());
  EXPECT_EQ(reopened.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(reopened.status().message().find(FileOf(1)), std::string::npos)
      << reopened.status();
}

TEST_F(ModelStoreTest, AFileUnderAnotherVersionsNameIsRefused) {
  {
    std::unique_ptr<ModelStore> store = OpenStore();
    ASSERT_TRUE(store->Publish(Info(4, true), Model(4)).ok());
  }
  std::filesystem::rename(FileOf(1), FileOf(7));
  absl::StatusOr<std::unique_ptr<ModelStore>> reopened = ModelStore::Open({.dir = dir_, .keep = 3});
  ASSERT_FALSE(reopened.ok());
  EXPECT_NE(reopened.status().message().find("its name says 7"), std::string::npos)
      << reopened.status();
}

TEST_F(ModelStoreTest, LeftoverTemporaryFilesAreIgnored) {
  {
    std::unique_ptr<ModelStore> store = OpenStore();
    ASSERT_TRUE(store->Publish(Info(4, true), Model(4)).ok());
  }
  std::ofstream(FileOf(2) + ".tmp.abcdef") << "torn";
  std::unique_ptr<ModelStore> store = OpenStore();
  ASSERT_NE(store->Latest(), nullptr);
  EXPECT_EQ(store->Latest()->version.version(), 1);
}

TEST_F(ModelStoreTest, KeepBelowOneIsRefused) {
  EXPECT_EQ(ModelStore::Open({.dir = "", .keep = 0}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// A front's copy of the combiner's store: each version kept with its number and metadata, once
// its model matches its hash; a corrupted one is refused, a repeat changes nothing, and the copy
// applies its own retention.
TEST_F(ModelStoreTest, KeepsAnotherStoresVersionsAsTheyAre) {
  std::unique_ptr<ModelStore> origin = OpenStore();
  ASSERT_TRUE(origin->Publish(Info(5, true), Model(5)).ok());
  ASSERT_TRUE(origin->Publish(Info(10, false), Model(10)).ok());
  ASSERT_TRUE(origin->Publish(Info(15, false), Model(15)).ok());
  std::unique_ptr<ModelStore> copy = ModelStore::Open({.dir = "", .keep = 1}).value();
  for (const std::shared_ptr<const ModelStore::Published>& published : origin->Kept()) {
    v1::StoredModel stored;
    *stored.mutable_version() = published->version;
    stored.set_model(published->model);
    ASSERT_TRUE(copy->Keep(stored).ok());
    ASSERT_TRUE(copy->Keep(stored).ok());  // sent twice: kept once
  }
  // keep = 1: the newest, and the newest final model (version 1).
  EXPECT_EQ(copy->Versions(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(copy->Latest()->version.SerializeAsString(),
            origin->Latest()->version.SerializeAsString());
  EXPECT_EQ(copy->Find(1)->model, origin->Find(1)->model);

  v1::StoredModel corrupted;
  *corrupted.mutable_version() = origin->Find(2)->version;
  corrupted.set_model(origin->Find(2)->model + "x");
  const absl::Status refused = copy->Keep(corrupted);
  EXPECT_TRUE(absl::IsDataLoss(refused)) << refused;
  EXPECT_THAT(std::string(refused.message()), ::testing::HasSubstr("model version 2"));
  EXPECT_EQ(copy->Versions(), (std::vector<int64_t>{1, 3}));
}

// The publish listener hears each new version once, after readers can find it; a republished
// model is not new; an empty listener stops it.
TEST_F(ModelStoreTest, TheListenerHearsEachNewVersion) {
  std::unique_ptr<ModelStore> store = OpenStore();
  std::vector<int64_t> heard;
  store->SetPublishListener([&](const std::shared_ptr<const ModelStore::Published>& published) {
    heard.push_back(published->version.version());
    EXPECT_EQ(store->Find(published->version.version()), published);
  });
  ASSERT_TRUE(store->Publish(Info(5, false), Model(5)).ok());
  ASSERT_TRUE(store->Publish(Info(5, false), Model(5)).ok());  // the same: version 1 again
  ASSERT_TRUE(store->Publish(Info(6, false), Model(6)).ok());
  store->SetPublishListener({});
  ASSERT_TRUE(store->Publish(Info(7, false), Model(7)).ok());
  EXPECT_EQ(heard, (std::vector<int64_t>{1, 2}));
}

// What Models.Download is given: a kept version, or NOT_FOUND naming the newest.
TEST_F(ModelStoreTest, ForDownloadNamesTheNewestVersionOfAMissingOne) {
  std::unique_ptr<ModelStore> store = OpenStore();
  EXPECT_THAT(std::string(store->ForDownload(1).status().message()),
              ::testing::HasSubstr("none published"));
  ASSERT_TRUE(store->Publish(Info(5, false), Model(5)).ok());
  ASSERT_TRUE(store->ForDownload(1).ok());
  const absl::Status missing = store->ForDownload(7).status();
  EXPECT_TRUE(absl::IsNotFound(missing));
  EXPECT_THAT(std::string(missing.message()), ::testing::HasSubstr("newest: 1"));
}

}  // namespace
}  // namespace fedmf::server
