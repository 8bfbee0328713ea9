// Mask expansion throughput of AesCtrPrg (into uint64 or uint32 vectors) against raw AES-256-CTR
// keystream, measured alternately inside every iteration so both see the same machine load, in
// the thread's CPU time (on a shared machine wall time also counts the other jobs' turns). "Mask
// bytes" are the information in the mask, d * b / 8 (also its bit-packed wire size), which is
// exactly the keystream the PRG consumes; ratio = mask bytes/s divided by keystream bytes/s for the
// same byte count (1.0 would mean unpacking and accumulating were free). Run:
//   build/tests/bench/prg_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <openssl/evp.h>
#include <time.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "benchmark/benchmark.h"
#include "crypto/prg.h"

namespace fedmf::crypto {
namespace {

// CPU seconds used so far by the calling thread.
double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// The yardstick: AES-256-CTR keystream in 16 KiB chunks (the PRG uses 4 KiB ones: fewer calls
// here, so the yardstick is the faster), from a zero buffer, into a buffer that stays in cache,
// through one reused EVP context.
class RawKeystream {
 public:
  RawKeystream() : ctx_(EVP_CIPHER_CTX_new()), zeros_(kChunk, 0), out_(kChunk) {}
  ~RawKeystream() { EVP_CIPHER_CTX_free(ctx_); }

  void Generate(const uint8_t* key, size_t bytes) {
    static const uint8_t kIv[16] = {};
    if (EVP_EncryptInit_ex(ctx_, EVP_aes_256_ctr(), nullptr, key, kIv) != 1) std::abort();
    for (size_t done = 0; done < bytes;) {
      const int n = static_cast<int>(std::min(kChunk, bytes - done));
      int len = 0;
      if (EVP_EncryptUpdate(ctx_, out_.data(), &len, zeros_.data(), n) != 1) std::abort();
      benchmark::DoNotOptimize(out_.data());
      done += static_cast<size_t>(n);
    }
  }

 private:
  static constexpr size_t kChunk = 16384;
  EVP_CIPHER_CTX* ctx_;
  std::vector<uint8_t> zeros_, out_;
};

enum class Kind { kExpand, kAddMask };

template <typename Word>
void RunMaskBenchmark(benchmark::State& state, Kind kind) {
  const int bits = static_cast<int>(state.range(0));
  const size_t d = static_cast<size_t>(state.range(1));
  const size_t mask_bytes = (d * static_cast<size_t>(bits) + 7) / 8;
  absl::StatusOr<AesCtrPrg> prg = AesCtrPrg::Create();
  if (!prg.ok()) {
    state.SkipWithError("AesCtrPrg::Create failed");
    return;
  }
  RawKeystream raw;
  std::vector<Word> vec(d, 0);
  std::vector<uint8_t> seed(kPrgSeedSize, 0);
  double mask_seconds = 0, keystream_seconds = 0;
  for (auto _ : state) {
    ++seed[0];  // a new seed every iteration, as in the protocol
    const double t0 = CpuSeconds();
    const absl::Status s = kind == Kind::kExpand
                               ? prg->Expand(seed, bits, absl::MakeSpan(vec))
                               : prg->AddMask(seed, bits, MaskOp::kAdd, absl::MakeSpan(vec));
    const double t1 = CpuSeconds();
    if (!s.ok()) {
      state.SkipWithError("mask expansion failed");
      return;
    }
    benchmark::DoNotOptimize(vec.data());
    raw.Generate(seed.data(), mask_bytes);
    const double t2 = CpuSeconds();
    const double mask_time = t1 - t0;
    mask_seconds += mask_time;
    keystream_seconds += t2 - t1;
    state.SetIterationTime(mask_time);
  }
  const double iterations = static_cast<double>(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(iterations * mask_bytes));
  state.counters["keystream_GBps"] = iterations * mask_bytes / keystream_seconds / 1e9;
  state.counters["values_per_ns"] = iterations * d / mask_seconds / 1e9;
  state.counters["ratio"] = keystream_seconds / mask_seconds;
}

void BM_ExpandMask(benchmark::State& state) { RunMaskBenchmark<uint64_t>(state, Kind::kExpand); }
void BM_AddMask(benchmark::State& state) { RunMaskBenchmark<uint64_t>(state, Kind::kAddMask); }
// The same into 32-bit words (b <= 32): half the accumulator memory traffic.
void BM_AddMask32(benchmark::State& state) { RunMaskBenchmark<uint32_t>(state, Kind::kAddMask); }

void BM_RawKeystream(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  RawKeystream raw;
  std::vector<uint8_t> key(32, 1);
  for (auto _ : state) {
    ++key[0];
    raw.Generate(key.data(), bytes);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}

void MaskArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"bits", "d"});
  for (int bits : {20, 32}) {
    for (int64_t d : {int64_t{1} << 14, int64_t{1} << 20}) b->Args({bits, d});
  }
  b->UseManualTime()->Unit(benchmark::kMicrosecond);
}

BENCHMARK(BM_ExpandMask)->Apply(MaskArgs);
BENCHMARK(BM_AddMask)->Apply(MaskArgs);
BENCHMARK(BM_AddMask32)->Apply(MaskArgs);
// Keystream for the same byte counts: d * b / 8.
BENCHMARK(BM_RawKeystream)
    ->Arg(40960)
    ->Arg(65536)
    ->Arg(2621440)
    ->Arg(4194304)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace fedmf::crypto
