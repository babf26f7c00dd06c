// bench_peak: the roofline's ceiling on this machine, in FLOP/s.
//
// Runs the peak probes of peak_probes.h on their own: the FMA-bound loops
// (AVX2 and, where compiled, AVX-512; f32 and f64) and the large Eigen GEMM
// (f32, f64), each on 1 and 2 threads. bench_kernels runs the same probes
// (1 thread) before the kernels it compares with them.
// The FLOP/s column is `FLOPS` (Google Benchmark prints it with an SI prefix,
// e.g. 150G/s). Flags of our own, removed before Google Benchmark sees argv:
//   --gemm_n=N   GEMM size (default 1024; the smoke test uses a tiny one)
//   --fma_iters=K  inner iterations of the FMA loop (default 1 << 16)
#include "bench/peak_probes.h"

#include <benchmark/benchmark.h>

namespace pb = plastic::bench;

int main(int argc, char** argv) {
  int out = 1;
  for (int i = 1; i < argc; ++i)
    if (!pb::take_probe_flag(argv[i])) argv[out++] = argv[i];
  argc = out;
  benchmark::AddCustomContext("eigen_openmp",
                              pb::eigen_openmp() ? "yes" : "no (Eigen GEMM is single-threaded)");
  for (int threads : {1, 2}) {
    // FMA rates are per CPU-second of each thread (summed over threads), so a
    // core shared with other work still shows what the core itself can do.
    benchmark::RegisterBenchmark("fma_avx2_f32", pb::fma_avx2_f32)->Threads(threads);
    benchmark::RegisterBenchmark("fma_avx2_f64", pb::fma_avx2_f64)->Threads(threads);
    if (pb::have_avx512()) {
      benchmark::RegisterBenchmark("fma_avx512_f32", pb::fma_avx512_f32)->Threads(threads);
      benchmark::RegisterBenchmark("fma_avx512_f64", pb::fma_avx512_f64)->Threads(threads);
    }
  }
  const long n = pb::probe_sizes().gemm_n;
  for (int threads : {1, 2}) {
    // Real time: Eigen's OpenMP workers' CPU time is not the main thread's.
    benchmark::RegisterBenchmark("gemm_eigen_f32", pb::gemm_eigen_f32)
        ->Args({n, threads})
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("gemm_eigen_f64", pb::gemm_eigen_f64)
        ->Args({n, threads})
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
