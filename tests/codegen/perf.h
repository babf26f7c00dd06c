// Throughput measurements of JIT-compiled kernels, reported by test_perf.cpp
// (never asserted: timings depend on the machine and its load).
#pragma once

#include <cstdint>

#include "compiler/codegen/llvm/options.h"
#include "compiler/codegen/loop_ir.h"

namespace plastic::codegen::test {

/// GFLOP/s (2 flops per multiply-add) of the multi-head matvec kernel
/// y[h,i] = sum_j W[h,i,j] k[h,j] on tiles of `lanes` samples. `tiles` = 1
/// reuses one tile (cache-resident: compute-bound); many tiles stream W
/// from memory as a training batch does.
double matvec_gflops(ElemType type, int lanes, int64_t heads, int64_t d, int64_t tiles);

/// Nanoseconds per element of y = f(x) over a cache-resident buffer.
double math_ns_per_element(UnaryOp op, ElemType type, MathMode mode);

/// Samples per second through the fused Delta-rule field kernel.
double delta_field_samples_per_s(ElemType type, int lanes, int64_t d_in, int64_t heads, int64_t d);

}  // namespace plastic::codegen::test
