#include "tools/loadgen/latency_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fedmf::loadgen {

double NearestRank(const std::vector<double>& sorted, double q) {
  const size_t n = sorted.size();
  size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(n)));
  rank = std::clamp<size_t>(rank, 1, n);
  return sorted[rank - 1];
}

Percentiles Summarize(std::vector<double> values) {
  Percentiles p;
  p.count = values.size();
  if (values.empty()) return p;
  std::sort(values.begin(), values.end());
  p.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(p.count);
  p.p50 = NearestRank(values, 0.50);
  p.p95 = NearestRank(values, 0.95);
  p.p99 = NearestRank(values, 0.99);
  p.max = values.back();
  return p;
}

void LatencyRecorder::Add(const std::string& series, double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  samples_[series].push_back(seconds);
}

std::map<std::string, Percentiles> LatencyRecorder::Summaries() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::string, Percentiles> out;
  for (const auto& [name, values] : samples_) out[name] = Summarize(values);
  return out;
}

}  // namespace fedmf::loadgen
