// The peak-FLOP probes (see peak_probes.h): the FMA-bound loops and the Eigen
// GEMM, compiled with -O3 -march=native so that they reach this machine's
// peak, whatever the project's own flags are.
#include "bench/peak_probes.h"

#include <immintrin.h>

#include <Eigen/Core>
#include <cstdlib>
#include <cstring>

namespace plastic::bench {

namespace {

// 12 accumulators: latency 4 x 2 ports = 8 FMAs in flight saturate Zen and
// Intel cores; 12 leaves slack for 5-cycle parts without spilling registers.
constexpr int kAcc = 12;

template <class V, class Fma, class Set>
void fma_loop(benchmark::State& state, int lanes, Fma fma, Set set) {
  const long iters = probe_sizes().fma_iters;
  V acc[kAcc];
  for (int i = 0; i < kAcc; ++i)
    acc[i] = set(1.0 + 1e-3 * i);
  const V a = set(0.999999), b = set(1e-7);
  for (auto _ : state) {
    for (long it = 0; it < iters; ++it) {
#pragma GCC unroll 12
      for (int i = 0; i < kAcc; ++i)
        acc[i] = fma(acc[i], a, b);
    }
    for (int i = 0; i < kAcc; ++i)
      benchmark::DoNotOptimize(acc[i]);
  }
  // One FMA = 2 FLOP per lane.
  const double flops = 2.0 * lanes * kAcc * static_cast<double>(iters);
  state.counters[kFlopsCounter] = benchmark::Counter(
      flops * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

template <class T> void gemm(benchmark::State& state) {
  using M = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
  const long n = state.range(0);
  Eigen::setNbThreads(static_cast<int>(state.range(1)));
  M a = M::Random(n, n), b = M::Random(n, n), c(n, n);
  for (auto _ : state) {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  state.counters[kFlopsCounter] = benchmark::Counter(
      2.0 * n * n * n * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["eigen_threads"] = Eigen::nbThreads();
  Eigen::setNbThreads(0);
}

} // namespace

ProbeSizes& probe_sizes() {
  static ProbeSizes sizes;
  return sizes;
}

bool take_probe_flag(const char* arg) {
  if (std::strncmp(arg, "--gemm_n=", 9) == 0)
    probe_sizes().gemm_n = std::atol(arg + 9);
  else if (std::strncmp(arg, "--fma_iters=", 12) == 0)
    probe_sizes().fma_iters = std::atol(arg + 12);
  else
    return false;
  return true;
}

bool have_avx512() {
#ifdef __AVX512F__
  return true;
#else
  return false;
#endif
}

bool eigen_openmp() {
#ifdef _OPENMP
  return true;
#else
  return false;
#endif
}

void fma_avx2_f32(benchmark::State& s) {
  fma_loop<__m256>(
      s, 8, [](__m256 x, __m256 a, __m256 b) { return _mm256_fmadd_ps(x, a, b); },
      [](double v) { return _mm256_set1_ps(static_cast<float>(v)); });
}
void fma_avx2_f64(benchmark::State& s) {
  fma_loop<__m256d>(
      s, 4, [](__m256d x, __m256d a, __m256d b) { return _mm256_fmadd_pd(x, a, b); },
      [](double v) { return _mm256_set1_pd(v); });
}
#ifdef __AVX512F__
void fma_avx512_f32(benchmark::State& s) {
  fma_loop<__m512>(
      s, 16, [](__m512 x, __m512 a, __m512 b) { return _mm512_fmadd_ps(x, a, b); },
      [](double v) { return _mm512_set1_ps(static_cast<float>(v)); });
}
void fma_avx512_f64(benchmark::State& s) {
  fma_loop<__m512d>(
      s, 8, [](__m512d x, __m512d a, __m512d b) { return _mm512_fmadd_pd(x, a, b); },
      [](double v) { return _mm512_set1_pd(v); });
}
#else
void fma_avx512_f32(benchmark::State& s) {
  s.SkipWithError("built without AVX-512");
}
void fma_avx512_f64(benchmark::State& s) {
  s.SkipWithError("built without AVX-512");
}
#endif

void gemm_eigen_f32(benchmark::State& s) {
  gemm<float>(s);
}
void gemm_eigen_f64(benchmark::State& s) {
  gemm<double>(s);
}

} // namespace plastic::bench
