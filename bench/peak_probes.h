// The peak-FLOP probes of the roofline, as Google Benchmark functions shared
// by bench_peak (the probes alone) and bench_kernels (which measures the
// compiled kernels against the peak it probes in the same run).
//
// Plastic is measured against the cores' peak (DESIGN.md, "Performance
// design"), so the peak must be measured, not read off a data sheet: clocks
// under load, the number of FMA ports and whether the hypervisor exposes them
// all differ from machine to machine. Two probes:
//   * an FMA-bound loop: independent accumulators of fused multiply-adds,
//     enough to cover the FMA latency on both FMA ports, with 256-bit AVX2
//     vectors (8 x f32 or 4 x f64, Plastic's default tile width) and, where
//     the CPU has it, 512-bit AVX-512 (16 x f32, 8 x f64);
//   * a large Eigen GEMM (f32, f64), Args({n, threads}): what a well-blocked
//     dense kernel reaches with the memory system in the way. Eigen runs
//     threads only when compiled with OpenMP (eigen_openmp()).
// Every probe reports its rate in the counter kFlopsCounter (FLOP/s).
//
// peak_probes.cpp is compiled with -march=native (bench/CMakeLists.txt): the
// probes must reach this machine's peak, whatever the project's portable
// build flags are. This header is free of intrinsics and Eigen so that code
// built without -march=native can register the probes.
#pragma once

#include <benchmark/benchmark.h>

namespace plastic::bench {

/// The rate counter every probe sets, FLOP/s.
inline constexpr const char* kFlopsCounter = "FLOPS";

/// Sizes of the probes (our own flags --gemm_n, --fma_iters).
struct ProbeSizes {
  long gemm_n = 1024;       ///< default GEMM size, n x n times n x n
  long fma_iters = 1 << 16; ///< inner iterations of the FMA loop per benchmark iteration
};
ProbeSizes& probe_sizes();

/// Consumes `--gemm_n=N` or `--fma_iters=K` into probe_sizes(); false (and
/// nothing changed) for any other argument.
bool take_probe_flag(const char* arg);

/// Whether the AVX-512 FMA loops were compiled (the build machine has
/// AVX-512); when false, register only the AVX2 ones.
bool have_avx512();
/// Whether Eigen was compiled with OpenMP, i.e. can run the GEMM on threads.
bool eigen_openmp();

void fma_avx2_f32(benchmark::State& state);
void fma_avx2_f64(benchmark::State& state);
/// Only when have_avx512(); otherwise they skip with an error.
void fma_avx512_f32(benchmark::State& state);
void fma_avx512_f64(benchmark::State& state);

/// Args({n, threads}): c = a * b with n x n matrices on `threads` Eigen threads.
void gemm_eigen_f32(benchmark::State& state);
void gemm_eigen_f64(benchmark::State& state);

} // namespace plastic::bench
