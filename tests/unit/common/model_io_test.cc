#include "common/mf/model_io.h"

#include <filesystem>
#include <string>

#include "common/util/atomic_file.h"
#include "fedmf/v1/model.pb.h"
#include "gtest/gtest.h"

namespace fedmf::mf {
namespace {

class ModelIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::create_directories(dir_);
    model_.algorithm = "als";
    model_.user_factors.resize(2, 3);
    model_.user_factors << 1, 2, 3, 4, 5, 6;
    model_.item_factors.resize(1, 3);
    model_.item_factors << -1, 0.5, 0.25;
    model_.global_mean = 3.5;
    model_.user_bias = Eigen::Vector2d(0.1, -0.1);
    model_.item_bias = Eigen::VectorXd::Constant(1, 0.3);
    ids_.user_ids = {"alice", "bob"};
    ids_.item_ids = {"movie-9"};
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
  FactorModel model_;
  data::IdMaps ids_;
};

TEST_F(ModelIoTest, RoundTripKeepsEverything) {
  ASSERT_TRUE(SaveModel(model_, ids_, Path("m.pb")).ok());
  const ModelWithIds loaded = LoadModel(Path("m.pb")).value();
  EXPECT_EQ(loaded.model.algorithm, "als");
  EXPECT_EQ(loaded.model.user_factors, model_.user_factors);
  EXPECT_EQ(loaded.model.item_factors, model_.item_factors);
  EXPECT_EQ(loaded.model.user_bias, model_.user_bias);
  EXPECT_EQ(loaded.model.item_bias, model_.item_bias);
  EXPECT_EQ(loaded.model.global_mean, 3.5);
  EXPECT_EQ(loaded.user_ids, ids_.user_ids);
  EXPECT_EQ(loaded.item_ids, ids_.item_ids);
  // No temporary file is left next to the model.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1);
}

TEST_F(ModelIoTest, SaveRejectsIdMapsOfAnotherShape) {
  ids_.item_ids.push_back("extra");
  const absl::Status s = SaveModel(model_, ids_, Path("m.pb"));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(std::filesystem::exists(Path("m.pb")));
}

TEST_F(ModelIoTest, MissingFileIsNotFound) {
  EXPECT_EQ(LoadModel(Path("absent.pb")).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(ModelIoTest, GarbageIsDataLoss) {
  ASSERT_TRUE(WriteFileAtomically(Path("bad.pb"), "\xff\xff\xff\xff garbage").ok());
  const absl::Status s = LoadModel(Path("bad.pb")).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("bad.pb"), std::string::npos) << s;
}

TEST_F(ModelIoTest, InconsistentDimensionsAreDataLoss) {
  v1::FactorModel proto;
  proto.mutable_user_factors()->set_rows(2);
  proto.mutable_user_factors()->set_cols(2);
  proto.mutable_user_factors()->add_values(1);  // 1 value for a 2 x 2 matrix
  ASSERT_TRUE(WriteFileAtomically(Path("short.pb"), proto.SerializeAsString()).ok());
  const absl::Status s = LoadModel(Path("short.pb")).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("user_factors is 2 x 2 but holds 1 values"), std::string::npos) << s;
}

TEST_F(ModelIoTest, BiasOfWrongLengthIsDataLoss) {
  ASSERT_TRUE(SaveModel(model_, ids_, Path("m.pb")).ok());
  v1::FactorModel proto;
  ASSERT_TRUE(proto.ParseFromString(ReadFile(Path("m.pb")).value()));
  proto.add_item_bias(1.0);
  ASSERT_TRUE(WriteFileAtomically(Path("m.pb"), proto.SerializeAsString()).ok());
  const absl::Status s = LoadModel(Path("m.pb")).status();
  EXPECT_NE(s.message().find("item_bias has 2 entries, expected 1"), std::string::npos) << s;
}

}  // namespace
}  // namespace fedmf::mf
