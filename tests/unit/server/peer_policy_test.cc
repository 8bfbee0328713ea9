#include "server/peer_policy.h"

#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace fedmf::server {
namespace {

std::string Write(const std::string& name, const std::string& text) {
  const std::string path = std::string(::testing::TempDir()) + "/peer_policy_test_" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  return path;
}

TEST(PeerPolicyTest, ParsesOneIdentityPerLineSkippingCommentsAndBlanks) {
  const absl::flat_hash_set<std::string> ids =
      ParseRevokedIdentities("# revoked 2026-11-22\nclient-3\n\n  client-7 \t\n\tJane Doe\r\n#x\n");
  EXPECT_EQ(ids, (absl::flat_hash_set<std::string>{"client-3", "client-7", "Jane Doe"}));
  EXPECT_TRUE(ParseRevokedIdentities("").empty());
}

TEST(PeerPolicyTest, LoadRefusesAMissingFileNamingIt) {
  const absl::StatusOr<std::unique_ptr<RevocationList>> list =
      RevocationList::Load("/nonexistent/revoked.txt");
  EXPECT_EQ(list.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(list.status().message().find("/nonexistent/revoked.txt"), absl::string_view::npos);
}

TEST(PeerPolicyTest, RereadsTheFileWhenItChanges) {
  const std::string path = Write("reload.txt", "client-1\n");
  std::unique_ptr<RevocationList> list = RevocationList::Load(path, absl::ZeroDuration()).value();
  EXPECT_TRUE(list->IsRevoked("client-1"));
  EXPECT_FALSE(list->IsRevoked("client-2"));
  Write("reload.txt", "client-2\nclient-3\n");  // a different size: a change even in the same tick
  EXPECT_FALSE(list->IsRevoked("client-1"));
  EXPECT_TRUE(list->IsRevoked("client-2"));
  EXPECT_EQ(list->size(), 2u);
  // A file that disappears keeps the last list in force.
  std::remove(path.c_str());
  EXPECT_TRUE(list->IsRevoked("client-3"));
}

TEST(PeerPolicyTest, ChecksForChangesAtMostOncePerInterval) {
  const std::string path = Write("interval.txt", "a\n");
  std::unique_ptr<RevocationList> list = RevocationList::Load(path, absl::Hours(1)).value();
  Write("interval.txt", "b\nc\n");
  EXPECT_TRUE(list->IsRevoked("a"));  // not re-read within the hour
  EXPECT_FALSE(list->IsRevoked("b"));
}

TEST(PeerPolicyTest, AdmitsByIdentity) {
  PeerPolicy open(false, nullptr);
  EXPECT_TRUE(open.Admit("").ok());
  EXPECT_TRUE(open.Admit("anyone").ok());

  const std::string path = Write("admit.txt", "client-3\n");
  PeerPolicy mutual(true, RevocationList::Load(path).value());
  EXPECT_EQ(mutual.Admit("").code(), absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE(mutual.Admit("client-2").ok());
  const absl::Status revoked = mutual.Admit("client-3");
  EXPECT_EQ(revoked.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(revoked.message(), "identity 'client-3' is revoked");
}

}  // namespace
}  // namespace fedmf::server
