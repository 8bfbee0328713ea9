// The credentials file: its syntax errors name the line, an id belongs to one credential, and
// issue-token appends a usable token whose hash alone is stored.
#include "server/credentials.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::server {
namespace {

using ::testing::HasSubstr;

const std::string kHash(64, 'a');

TEST(CredentialsTest, ParsesTokensIdentitiesAndRanges) {
  const Credentials c = Credentials::Parse(absl::StrCat("# comment\n\n  token-sha256:", kHash,
                                                        "  1-3,7\nidentity:client-2\t4-6\n"))
                            .value();
  EXPECT_EQ(c.size(), 2u);
  const std::string token = "token-sha256:" + kHash;
  for (uint32_t id : {1, 2, 3, 7}) EXPECT_TRUE(c.Allows(token, id)) << id;
  for (uint32_t id : {0, 4, 6, 8}) EXPECT_FALSE(c.Allows(token, id)) << id;
  EXPECT_TRUE(c.Allows("identity:client-2", 5));
  EXPECT_FALSE(c.Allows("identity:client-3", 5));
  EXPECT_EQ(c.Match("", "client-2"), "identity:client-2");
  EXPECT_EQ(c.Match("", "client-9"), std::nullopt);
}

TEST(CredentialsTest, ErrorsNameTheLine) {
  auto error = [](const std::string& text) {
    return std::string(Credentials::Parse(text).status().message());
  };
  EXPECT_EQ(error("identity:a 1\nidentity:b\n"),
            "line 2: need two fields: a credential and its participant ids");
  EXPECT_EQ(error("token-sha256:ABC 1\n"), "line 1: token-sha256: needs 64 lowercase hex digits");
  EXPECT_THAT(error("user:x 1\n"), HasSubstr("line 1: credential 'user:x'"));
  EXPECT_EQ(error("identity:a 1\nidentity:a 2\n"),
            "line 2: credential listed twice (first on line 1)");
  EXPECT_EQ(error("identity:a 3-1\n"), "line 1: ids '3-1': need N or A-B with 1 <= A <= B");
  EXPECT_EQ(error("identity:a 0\n"), "line 1: ids '0': need N or A-B with 1 <= A <= B");
  EXPECT_EQ(error("identity:a 1-5\n# x\nidentity:b 9,5\n"),
            "line 3: participant id 5 also belongs to the credential on line 1");
}

TEST(CredentialsTest, IssueTokenAppendsItsHashOnly) {
  char dir[] = "/tmp/credentials_test.XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/credentials.txt";
  const std::string first = IssueToken(path, "1-10").value();
  const std::string second = IssueToken(path, "11-20").value();
  EXPECT_NE(first, second);
  EXPECT_EQ(first.size(), 64u);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str().find(first), std::string::npos);  // no secret in the file
  const Credentials c = Credentials::Parse(text.str()).value();
  EXPECT_EQ(c.Match(first, ""), TokenCredential(first));
  EXPECT_TRUE(c.Allows(TokenCredential(second), 20));
  EXPECT_FALSE(c.Allows(TokenCredential(second), 10));
  // Ids of another credential are refused and the file is left as it was.
  const absl::Status overlap = IssueToken(path, "10-12").status();
  EXPECT_THAT(overlap.message(), HasSubstr("participant id 10 also belongs"));
  std::ifstream again(path);
  std::stringstream after;
  after << again.rdbuf();
  EXPECT_EQ(after.str(), text.str());
  std::remove(path.c_str());
  rmdir(dir);
}

}  // namespace
}  // namespace fedmf::server
