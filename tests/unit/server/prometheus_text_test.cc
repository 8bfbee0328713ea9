#include "server/prometheus_text.h"

#include "gtest/gtest.h"

namespace fedmf::server {
namespace {

TEST(PrometheusTextTest, WritesAFamilyAndItsSamples) {
  PrometheusText out;
  out.Family("fedmf_sent_bytes_total", "counter", "Bytes sent.");
  out.Sample("fedmf_sent_bytes_total", 123456789012.0);
  out.Sample("fedmf_sent_bytes_total", 0.25, {{"kind", "training"}, {"stage", "ShareKeys"}});
  EXPECT_EQ(out.text(),
            "# HELP fedmf_sent_bytes_total Bytes sent.\n"
            "# TYPE fedmf_sent_bytes_total counter\n"
            "fedmf_sent_bytes_total 123456789012\n"  // every digit: not 1.23457e+11
            "fedmf_sent_bytes_total{kind=\"training\",stage=\"ShareKeys\"} 0.25\n");
}

TEST(PrometheusTextTest, EscapesLabelValuesAndHelp) {
  PrometheusText out;
  out.Family("m", "gauge", "a \\ b\nc \"d\"");
  out.Sample("m", 1, {{"reason", "say \"no\"\\\nnow"}});
  EXPECT_EQ(out.text(),
            "# HELP m a \\\\ b\\nc \"d\"\n"
            "# TYPE m gauge\n"
            "m{reason=\"say \\\"no\\\"\\\\\\nnow\"} 1\n");
}

TEST(PrometheusTextTest, WritesAHistogramWithItsInfBucketSumAndCount) {
  PrometheusText out;
  const HistogramSnapshot h{.bounds = {0.5, 2}, .buckets = {1, 3}, .count = 4, .sum = 7.5};
  out.Histogram("d", h, {{"stage", "x"}});
  EXPECT_EQ(out.text(),
            "d_bucket{stage=\"x\",le=\"0.5\"} 1\n"
            "d_bucket{stage=\"x\",le=\"2\"} 3\n"
            "d_bucket{stage=\"x\",le=\"+Inf\"} 4\n"
            "d_sum{stage=\"x\"} 7.5\n"
            "d_count{stage=\"x\"} 4\n");
}

TEST(PrometheusTextTest, WritesNonFiniteValuesAsTheFormatSpellsThem) {
  PrometheusText out;
  out.Sample("a", std::numeric_limits<double>::infinity());
  out.Sample("b", -std::numeric_limits<double>::infinity());
  out.Sample("c", std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(out.text(), "a +Inf\nb -Inf\nc NaN\n");
}

}  // namespace
}  // namespace fedmf::server
