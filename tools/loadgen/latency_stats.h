// Latency percentiles for fedmf-loadgen: nearest-rank percentiles of a sample, and a thread-safe
// recorder of samples per named series (a SecAgg stage or whole rounds).
#ifndef FEDMF_TOOLS_LOADGEN_LATENCY_STATS_H_
#define FEDMF_TOOLS_LOADGEN_LATENCY_STATS_H_

#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace fedmf::loadgen {

// Nearest-rank percentile: the value at 1-based rank ceil(q n) of the sorted sample (rank 1 for
// q = 0). `sorted` must be ascending and non-empty; q in [0, 1].
double NearestRank(const std::vector<double>& sorted, double q);

struct Percentiles {
  size_t count = 0;  // the others are 0 when count is 0
  double mean = 0;
  double p50 = 0;
  double p95 = 0;
  double p99 = 0;
  double max = 0;
};

Percentiles Summarize(std::vector<double> values);

class LatencyRecorder {
 public:
  void Add(const std::string& series, double seconds);
  // Every series with its summary, by name.
  std::map<std::string, Percentiles> Summaries() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::vector<double>> samples_;
};

}  // namespace fedmf::loadgen

#endif  // FEDMF_TOOLS_LOADGEN_LATENCY_STATS_H_
