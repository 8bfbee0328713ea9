#include "common/data/line_reader.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/common/test_files.h"

namespace fedmf::data {
namespace {

using ::fedmf::testing::WriteTestFile;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<std::string> ReadAll(const std::string& path) {
  absl::StatusOr<LineReader> reader = LineReader::Open(path);
  EXPECT_TRUE(reader.ok()) << reader.status();
  std::vector<std::string> lines;
  if (!reader.ok()) return lines;
  absl::string_view line;
  while (reader->Next(line)) {
    lines.emplace_back(line);
    EXPECT_EQ(reader->line_number(), static_cast<int64_t>(lines.size()));
  }
  EXPECT_TRUE(reader->status().ok()) << reader->status();
  return lines;
}

TEST(LineReaderTest, SplitsLfAndCrlfAndKeepsBlankLines) {
  EXPECT_THAT(ReadAll(WriteTestFile("a", "x\r\ny\n\nz\n")), ElementsAre("x", "y", "", "z"));
}

TEST(LineReaderTest, LastLineWithoutNewline) {
  EXPECT_THAT(ReadAll(WriteTestFile("a", "x\ny")), ElementsAre("x", "y"));
}

TEST(LineReaderTest, EmptyFileHasNoLines) {
  EXPECT_THAT(ReadAll(WriteTestFile("a", "")), IsEmpty());
}

TEST(LineReaderTest, BomDroppedOnlyAtStart) {
  EXPECT_THAT(ReadAll(WriteTestFile("a", "\xEF\xBB\xBFx\n\xEF\xBB\xBFy\n")),
              ElementsAre("x", "\xEF\xBB\xBFy"));
}

TEST(LineReaderTest, LinesLongerThanTheBufferAndAcrossRefills) {
  // The buffer starts at 1 MiB: a 2.5 MB line forces growth, and many short lines cross refills.
  const std::string long_line(2'500'000, 'a');
  std::string contents = "first\n" + long_line + "\r\n";
  for (int i = 0; i < 200'000; ++i) contents += "line" + std::to_string(i) + "\n";
  const std::vector<std::string> lines = ReadAll(WriteTestFile("a", contents));
  ASSERT_EQ(lines.size(), 200'002u);
  EXPECT_EQ(lines[0], "first");
  EXPECT_EQ(lines[1], long_line);
  EXPECT_EQ(lines[2], "line0");
  EXPECT_EQ(lines.back(), "line199999");
}

TEST(LineReaderTest, MissingFileIsNotFound) {
  const std::string path = fedmf::testing::TestDir() + "/missing.txt";
  absl::StatusOr<LineReader> reader = LineReader::Open(path);
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(reader.status().message(), ::testing::HasSubstr(path));
}

TEST(LineReaderTest, DirectoryIsAReadError) {
  absl::StatusOr<LineReader> reader = LineReader::Open(fedmf::testing::TestDir());
  ASSERT_TRUE(reader.ok()) << reader.status();  // fopen succeeds on a directory on Linux
  absl::string_view line;
  EXPECT_FALSE(reader->Next(line));
  EXPECT_FALSE(reader->status().ok());
}

}  // namespace
}  // namespace fedmf::data
