// bench_peak: the roofline's ceiling on this machine, in FLOP/s.
//
// Plastic is measured against the cores' peak (DESIGN.md, "Performance
// design"), so the peak must be measured, not read off a data sheet: clocks
// under load, the number of FMA ports and whether the hypervisor exposes them
// all differ from machine to machine. Two probes:
//   * an FMA-bound loop: kAcc independent accumulators of fused multiply-adds,
//     enough to cover the FMA latency (4-5 cycles) on both FMA ports, with
//     256-bit AVX2 vectors (the lane width Plastic's kernels use: 8 x f32 or
//     4 x f64) and, where the CPU has it, 512-bit AVX-512 for comparison;
//     1 and 2 threads;
//   * a large Eigen GEMM (f32, f64) on 1 and 2 threads — what a well-blocked
//     dense kernel reaches with the memory system in the way. Eigen runs
//     threads only when compiled with OpenMP (bench/CMakeLists.txt adds it
//     when found; the "eigen_openmp" context line says which).
// The FLOP/s column is `FLOPS` (Google Benchmark prints it with an SI prefix,
// e.g. 150G/s). Flags of our own, removed before Google Benchmark sees argv:
//   --gemm_n=N   GEMM size (default 1024; the smoke test uses a tiny one)
//   --fma_iters=K  inner iterations of the FMA loop (default 1 << 16)
#include <benchmark/benchmark.h>
#include <immintrin.h>

#include <Eigen/Core>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

long g_gemm_n = 1024;
long g_fma_iters = 1 << 16;

// 12 accumulators: latency 4 x 2 ports = 8 FMAs in flight saturate Zen and
// Intel cores; 12 leaves slack for 5-cycle parts without spilling registers.
constexpr int kAcc = 12;

template <class V, class Fma, class Set>
void fma_loop(benchmark::State& state, int lanes, Fma fma, Set set) {
  V acc[kAcc];
  for (int i = 0; i < kAcc; ++i) acc[i] = set(1.0 + 1e-3 * i);
  const V a = set(0.999999), b = set(1e-7);
  for (auto _ : state) {
    for (long it = 0; it < g_fma_iters; ++it) {
#pragma GCC unroll 12
      for (int i = 0; i < kAcc; ++i) acc[i] = fma(acc[i], a, b);
    }
    for (int i = 0; i < kAcc; ++i) benchmark::DoNotOptimize(acc[i]);
  }
  // One FMA = 2 FLOP per lane.
  const double flops = 2.0 * lanes * kAcc * static_cast<double>(g_fma_iters);
  state.counters["FLOPS"] = benchmark::Counter(flops * static_cast<double>(state.iterations()),
                                               benchmark::Counter::kIsRate);
}

void BM_fma_avx2_f32(benchmark::State& s) {
  fma_loop<__m256>(s, 8, [](__m256 x, __m256 a, __m256 b) { return _mm256_fmadd_ps(x, a, b); },
                   [](double v) { return _mm256_set1_ps(static_cast<float>(v)); });
}
void BM_fma_avx2_f64(benchmark::State& s) {
  fma_loop<__m256d>(s, 4, [](__m256d x, __m256d a, __m256d b) { return _mm256_fmadd_pd(x, a, b); },
                    [](double v) { return _mm256_set1_pd(v); });
}
#ifdef __AVX512F__
void BM_fma_avx512_f32(benchmark::State& s) {
  fma_loop<__m512>(s, 16, [](__m512 x, __m512 a, __m512 b) { return _mm512_fmadd_ps(x, a, b); },
                   [](double v) { return _mm512_set1_ps(static_cast<float>(v)); });
}
void BM_fma_avx512_f64(benchmark::State& s) {
  fma_loop<__m512d>(s, 8, [](__m512d x, __m512d a, __m512d b) { return _mm512_fmadd_pd(x, a, b); },
                    [](double v) { return _mm512_set1_pd(v); });
}
#endif

template <class T>
void BM_gemm(benchmark::State& state) {
  using M = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
  const long n = state.range(0);
  Eigen::setNbThreads(static_cast<int>(state.range(1)));
  M a = M::Random(n, n), b = M::Random(n, n), c(n, n);
  for (auto _ : state) {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  state.counters["FLOPS"] = benchmark::Counter(2.0 * n * n * n * static_cast<double>(state.iterations()),
                                               benchmark::Counter::kIsRate);
  state.counters["eigen_threads"] = Eigen::nbThreads();
  Eigen::setNbThreads(0);
}

// Takes our own --name=value flags out of argv.
void take_flags(int& argc, char** argv) {
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--gemm_n=", 9) == 0) g_gemm_n = std::atol(argv[i] + 9);
    else if (std::strncmp(argv[i], "--fma_iters=", 12) == 0) g_fma_iters = std::atol(argv[i] + 12);
    else argv[out++] = argv[i];
  }
  argc = out;
}

}  // namespace

int main(int argc, char** argv) {
  take_flags(argc, argv);
#ifdef _OPENMP
  benchmark::AddCustomContext("eigen_openmp", "yes");
#else
  benchmark::AddCustomContext("eigen_openmp", "no (Eigen GEMM is single-threaded)");
#endif
  for (int threads : {1, 2}) {
    // FMA rates are per CPU-second of each thread (summed over threads), so a
    // core shared with other work still shows what the core itself can do.
    benchmark::RegisterBenchmark("fma_avx2_f32", BM_fma_avx2_f32)->Threads(threads);
    benchmark::RegisterBenchmark("fma_avx2_f64", BM_fma_avx2_f64)->Threads(threads);
#ifdef __AVX512F__
    benchmark::RegisterBenchmark("fma_avx512_f32", BM_fma_avx512_f32)->Threads(threads);
    benchmark::RegisterBenchmark("fma_avx512_f64", BM_fma_avx512_f64)->Threads(threads);
#endif
  }
  for (int threads : {1, 2}) {
    benchmark::RegisterBenchmark("gemm_eigen_f32", BM_gemm<float>)->Args({g_gemm_n, threads})->UseRealTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("gemm_eigen_f64", BM_gemm<double>)->Args({g_gemm_n, threads})->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
