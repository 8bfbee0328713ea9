// The clear combination of sparse contributions (common/algorithms/contribution_vector.h): adding
// N = 16 sparse vectors of length d into a dense sum mod 2^32, against the yardstick of adding the
// same vectors densified with the dense AddModPow2, timed alternately inside every iteration so
// both see the same machine load. Counters: vs_dense = sparse time / dense time; ns_per_value =
// sparse time per stored value (flat across densities when the cost is proportional to the
// non-zeros); dense_ns_per_coordinate = the yardstick's time per coordinate. Run:
//   build/tests/bench/sparse_sum_bench
#include <chrono>
#include <cstdint>
#include <utility>
#include <vector>

#include "benchmark/benchmark.h"
#include "common/algorithms/contribution_vector.h"
#include "common/data/portable_random.h"

namespace fedmf::algorithms {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kContributions = 16;
constexpr int kBits = 32;
constexpr int kClientBits = 16;

// Arguments: d, then the density in parts per thousand.
void BM_SparseSum(benchmark::State& state) {
  const uint64_t d = static_cast<uint64_t>(state.range(0));
  const double density = static_cast<double>(state.range(1)) / 1000;
  data::PortableRandom random(1);
  std::vector<ContributionVector> sparse;
  std::vector<std::vector<uint64_t>> dense;
  size_t stored = 0;
  for (int n = 0; n < kContributions; ++n) {
    std::vector<uint64_t> indices, values;
    for (uint64_t j = 0; j < d; ++j) {
      if (random.Uniform() >= density) continue;
      indices.push_back(j);
      values.push_back(random.UniformInt(uint64_t{1} << kClientBits));
    }
    stored += values.size();
    sparse.push_back(ContributionVector::Sparse(std::move(indices), std::move(values)));
    dense.push_back(sparse.back().Densify(d).value());
  }
  std::vector<uint64_t> sparse_sum(d, 0), dense_sum(d, 0);
  double sparse_seconds = 0, dense_seconds = 0;
  for (auto _ : state) {
    const Clock::time_point t0 = Clock::now();
    for (const ContributionVector& v : sparse) {
      if (!AddModPow2(v, kBits, absl::MakeSpan(sparse_sum)).ok()) {
        state.SkipWithError("sparse AddModPow2 failed");
        return;
      }
    }
    benchmark::DoNotOptimize(sparse_sum.data());
    const Clock::time_point t1 = Clock::now();
    for (const std::vector<uint64_t>& v : dense) {
      if (!AddModPow2(v, kBits, absl::MakeSpan(dense_sum)).ok()) {
        state.SkipWithError("dense AddModPow2 failed");
        return;
      }
    }
    benchmark::DoNotOptimize(dense_sum.data());
    const Clock::time_point t2 = Clock::now();
    const double sparse_time = std::chrono::duration<double>(t1 - t0).count();
    sparse_seconds += sparse_time;
    dense_seconds += std::chrono::duration<double>(t2 - t1).count();
    state.SetIterationTime(sparse_time);
  }
  if (sparse_sum != dense_sum) state.SkipWithError("the sparse and dense sums differ");
  const double iterations = static_cast<double>(state.iterations());
  state.counters["vs_dense"] = sparse_seconds / dense_seconds;
  state.counters["ns_per_value"] =
      1e9 * sparse_seconds / (iterations * static_cast<double>(stored));
  state.counters["dense_ns_per_coordinate"] =
      1e9 * dense_seconds / (iterations * kContributions * static_cast<double>(d));
}

BENCHMARK(BM_SparseSum)
    ->ArgNames({"d", "per_mille"})
    ->ArgsProduct({{int64_t{1} << 16, int64_t{1} << 20}, {1, 10, 100}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace fedmf::algorithms
