#include "crypto/secret_bytes.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::crypto {
namespace {

using ::testing::ElementsAre;

TEST(SecretBytesTest, DefaultIsEmpty) {
  SecretBytes s;
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.size(), 0u);
}

TEST(SecretBytesTest, SizedConstructorZeroFills) {
  SecretBytes s(4);
  EXPECT_THAT(s.span(), ElementsAre(0, 0, 0, 0));
}

TEST(SecretBytesTest, CopiesFromSpan) {
  const std::vector<uint8_t> src = {1, 2, 3};
  SecretBytes s(absl::MakeConstSpan(src));
  EXPECT_THAT(s.span(), ElementsAre(1, 2, 3));
  EXPECT_NE(s.data(), src.data());
}

TEST(SecretBytesTest, MoveLeavesSourceEmpty) {
  const std::vector<uint8_t> src = {7, 8};
  SecretBytes a(absl::MakeConstSpan(src));
  SecretBytes b(std::move(a));
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): the moved-from state is specified.
  EXPECT_THAT(b.span(), ElementsAre(7, 8));
  SecretBytes c(1);
  c = std::move(b);
  EXPECT_TRUE(b.empty());  // NOLINT(bugprone-use-after-move)
  EXPECT_THAT(c.span(), ElementsAre(7, 8));
}

TEST(SecretBytesTest, CloneIsAnIndependentEqualCopy) {
  const std::vector<uint8_t> src = {9, 9, 9};
  SecretBytes a(absl::MakeConstSpan(src));
  SecretBytes b = a.Clone();
  EXPECT_TRUE(a == b);
  b.data()[0] = 1;
  EXPECT_TRUE(a != b);
  EXPECT_EQ(a.data()[0], 9);
}

TEST(SecretBytesTest, EqualityComparesSizeAndContent) {
  const std::vector<uint8_t> x = {1, 2}, y = {1, 2, 0}, z = {1, 3};
  EXPECT_TRUE(SecretBytes(absl::MakeConstSpan(x)) == SecretBytes(absl::MakeConstSpan(x)));
  EXPECT_FALSE(SecretBytes(absl::MakeConstSpan(x)) == SecretBytes(absl::MakeConstSpan(y)));
  EXPECT_FALSE(SecretBytes(absl::MakeConstSpan(x)) == SecretBytes(absl::MakeConstSpan(z)));
  EXPECT_TRUE(SecretBytes() == SecretBytes(0));
}

TEST(SecretBytesTest, ClearEmptiesTheBuffer) {
  SecretBytes s(16);
  s.Clear();
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.data(), nullptr);
}

TEST(SecretBytesTest, ConvertsToConstSpan) {
  SecretBytes s(3);
  s.mutable_span()[2] = 5;
  absl::Span<const uint8_t> view = s;  // what crypto APIs taking key spans rely on
  EXPECT_THAT(view, ElementsAre(0, 0, 5));
}

}  // namespace
}  // namespace fedmf::crypto
