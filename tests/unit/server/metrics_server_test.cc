// The scrape endpoint over real HTTP on a loopback port.
#include "server/metrics_server.h"

#include <httplib.h>

#include <atomic>
#include <string>

#include "gtest/gtest.h"
#include "server/prometheus_text.h"

namespace fedmf::server {
namespace {

TEST(MetricsServerTest, ServesTheRenderedTextAtMetricsOnly) {
  std::atomic<int> scrapes{0};
  auto server = MetricsServer::Start(
      "127.0.0.1:0", [&scrapes] { return "fedmf_scrapes " + std::to_string(++scrapes) + "\n"; });
  ASSERT_TRUE(server.ok()) << server.status();
  ASSERT_GT((*server)->port(), 0);
  httplib::Client client("127.0.0.1", (*server)->port());
  for (int i = 1; i <= 2; ++i) {  // rendered afresh for each scrape
    httplib::Result got = client.Get("/metrics");
    ASSERT_TRUE(got) << httplib::to_string(got.error());
    EXPECT_EQ(got->status, 200);
    EXPECT_EQ(got->get_header_value("Content-Type"), kPrometheusContentType);
    EXPECT_EQ(got->body, "fedmf_scrapes " + std::to_string(i) + "\n");
  }
  httplib::Result other = client.Get("/");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 404);
  httplib::Result post = client.Post("/metrics", std::string(1000, 'x'), "text/plain");
  ASSERT_TRUE(post);
  EXPECT_NE(post->status, 200);
  EXPECT_EQ(scrapes.load(), 2);
}

TEST(MetricsServerTest, RefusesMalformedAddressesAndAPortInUse) {
  for (const char* bad :
       {"", "127.0.0.1", "127.0.0.1:x", "127.0.0.1:70000", ":9090", "[::1:9090"}) {
    const absl::Status s = MetricsServer::Start(bad, [] { return ""; }).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad << ": " << s;
  }
  auto first = MetricsServer::Start("127.0.0.1:0", [] { return ""; });
  ASSERT_TRUE(first.ok()) << first.status();
  const std::string taken = "127.0.0.1:" + std::to_string((*first)->port());
  EXPECT_EQ(MetricsServer::Start(taken, [] { return ""; }).status().code(),
            absl::StatusCode::kUnavailable);
}

TEST(MetricsServerTest, StopsAtOnceWhenDestroyedRightAfterStarting) {
  for (int i = 0; i < 20; ++i) {
    auto server = MetricsServer::Start("127.0.0.1:0", [] { return ""; });
    ASSERT_TRUE(server.ok()) << server.status();
  }  // each destructor joins its thread: a hang here is the failure
}

}  // namespace
}  // namespace fedmf::server
