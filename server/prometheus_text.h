// The Prometheus text exposition format (version 0.0.4), written family by family: a family's
// HELP and TYPE lines, then its samples. Metric names are the caller's constants; label values
// are escaped here (backslash, double quote, newline), so any string may be one.
#ifndef FEDMF_SERVER_PROMETHEUS_TEXT_H_
#define FEDMF_SERVER_PROMETHEUS_TEXT_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace fedmf::server {

// The Content-Type of the format.
inline constexpr char kPrometheusContentType[] = "text/plain; version=0.0.4; charset=utf-8";

using MetricLabels = std::vector<std::pair<std::string, std::string>>;

// Cumulative observation counts per upper bound (the +Inf bucket is `count`), with their sum.
struct HistogramSnapshot {
  std::vector<double> bounds;     // ascending
  std::vector<uint64_t> buckets;  // observations <= bounds[i], one per bound
  uint64_t count = 0;
  double sum = 0;
};

class PrometheusText {
 public:
  // Starts a family; `type` is "counter", "gauge" or "histogram". The samples that follow belong
  // to it.
  void Family(absl::string_view name, absl::string_view type, absl::string_view help);
  // One sample of the current family (a counter's name ends in _total by convention).
  void Sample(absl::string_view name, double value, const MetricLabels& labels = {});
  // A histogram's _bucket, _sum and _count samples for `name` (the family's name).
  void Histogram(absl::string_view name, const HistogramSnapshot& histogram,
                 const MetricLabels& labels = {});

  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_PROMETHEUS_TEXT_H_
