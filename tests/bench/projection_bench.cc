// Throughput of the DPMF-RP client pipeline pieces (sparse projection S and S^T, randomized
// Hadamard flattening, PBM encoding) on ML100K-sized gradients (m = 1682 items, k = 14), each
// reported with its time relative to two yardsticks timed in the same process on the same number
// of doubles: memcpy of the input and an axpy (y += a x). Counters vs_memcpy / vs_axpy are ratios.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <vector>

#include "Eigen/Core"
#include "benchmark/benchmark.h"
#include "common/dp/hadamard.h"
#include "common/dp/pbm.h"
#include "common/dp/rng.h"
#include "common/dp/samplers.h"
#include "common/dp/sparse_projection.h"

namespace fedmf::dp {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int64_t kItems = 1682, kFactors = 14;

Eigen::MatrixXd RandomMatrix(int64_t rows, int64_t cols) {
  Rng rng(1);
  Eigen::MatrixXd x(rows, cols);
  for (int64_t i = 0; i < x.size(); ++i) x.data()[i] = StandardNormal(rng);
  return x;
}

// Best-of-5 nanoseconds per call of fn, each timing over enough calls to last about 2 ms.
template <typename Fn>
double NanosPerCall(Fn fn) {
  double best = 1e300;
  for (int rep = 0; rep < 5; ++rep) {
    int64_t calls = 0;
    const auto start = Clock::now();
    auto now = start;
    while (now - start < std::chrono::milliseconds(2)) {
      for (int i = 0; i < 16; ++i) fn();
      calls += 16;
      now = Clock::now();
    }
    best = std::min(best, std::chrono::duration<double, std::nano>(now - start).count() / calls);
  }
  return best;
}

// Times the benchmark loop and sets the yardstick ratios for `elements` doubles.
template <typename Fn>
void RunWithYardsticks(benchmark::State& state, int64_t elements, Fn fn) {
  const auto start = Clock::now();
  for (auto _ : state) fn();
  const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count() /
                    static_cast<double>(state.iterations());
  std::vector<double> src(elements, 1.5), dst(elements, 0.0);
  const double memcpy_ns = NanosPerCall([&] {
    std::memcpy(dst.data(), src.data(), elements * sizeof(double));
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  });
  Eigen::Map<Eigen::VectorXd> x(src.data(), elements), y(dst.data(), elements);
  const double axpy_ns = NanosPerCall([&] {
    y += 0.5 * x;
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  });
  state.counters["vs_memcpy"] = ns / memcpy_ns;
  state.counters["vs_axpy"] = ns / axpy_ns;
  state.SetBytesProcessed(state.iterations() * elements * static_cast<int64_t>(sizeof(double)));
}

void BM_SparseApply(benchmark::State& state) {
  const int64_t p = kItems / state.range(0);  // m / p
  const SparseProjection s = *SparseProjection::Create(kItems, p, 7);
  const Eigen::MatrixXd x = RandomMatrix(kItems, kFactors);
  RunWithYardsticks(state, x.size(), [&] {
    absl::StatusOr<Eigen::MatrixXd> out = s.Apply(x);
    benchmark::DoNotOptimize(out);
  });
}
BENCHMARK(BM_SparseApply)->Arg(1)->Arg(3)->Arg(10);

void BM_SparseApplyTranspose(benchmark::State& state) {
  const int64_t p = kItems / state.range(0);
  const SparseProjection s = *SparseProjection::Create(kItems, p, 7);
  const Eigen::MatrixXd y = RandomMatrix(p, kFactors);
  RunWithYardsticks(state, kItems * kFactors, [&] {
    absl::StatusOr<Eigen::MatrixXd> out = s.ApplyTranspose(y);
    benchmark::DoNotOptimize(out);
  });
}
BENCHMARK(BM_SparseApplyTranspose)->Arg(1)->Arg(3)->Arg(10);

// FlatMat of a p x k matrix, p = m / ratio; the yardsticks run over p' k doubles.
void BM_Flatten(benchmark::State& state) {
  const int64_t p = kItems / state.range(0);
  const RandomizedHadamard h = *RandomizedHadamard::Create(p, 7);
  const Eigen::MatrixXd b = RandomMatrix(p, kFactors);
  RunWithYardsticks(state, h.padded_rows() * kFactors, [&] {
    absl::StatusOr<Eigen::MatrixXd> out = h.Flatten(b);
    benchmark::DoNotOptimize(out);
  });
}
BENCHMARK(BM_Flatten)->Arg(1)->Arg(3)->Arg(10);

void BM_Reverse(benchmark::State& state) {
  const int64_t p = kItems / state.range(0);
  const RandomizedHadamard h = *RandomizedHadamard::Create(p, 7);
  const Eigen::MatrixXd flat = RandomMatrix(h.padded_rows(), kFactors);
  RunWithYardsticks(state, flat.size(), [&] {
    absl::StatusOr<Eigen::MatrixXd> out = h.Reverse(flat);
    benchmark::DoNotOptimize(out);
  });
}
BENCHMARK(BM_Reverse)->Arg(3);

// PBM on p' k = 1024 * 14 coordinates (m/p = 3) for q = 1, 16, 256.
void BM_PbmEncode(benchmark::State& state) {
  const Eigen::MatrixXd flat = RandomMatrix(1024, kFactors) * 0.01;
  const Eigen::Map<const Eigen::VectorXd> x(flat.data(), flat.size());
  const PbmParams params{1.0, 0.25, state.range(0)};
  Rng rng(3);
  RunWithYardsticks(state, flat.size(), [&] {
    absl::StatusOr<std::vector<uint64_t>> z = PbmEncode(x, params, PbmRangePolicy::kClamp, rng);
    benchmark::DoNotOptimize(z);
  });
}
BENCHMARK(BM_PbmEncode)->Arg(1)->Arg(16)->Arg(256);

}  // namespace
}  // namespace fedmf::dp
