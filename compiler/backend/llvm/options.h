// Options and statistics of the LLVM backend (JIT and AOT), free of LLVM
// headers so that drivers and tests can include them cheaply.
#pragma once

#include "compiler/loops/loop_ir.h"

#include <cstdint>
#include <string>
#include <vector>

namespace plastic::backend {

/// How exp, expm1, log, log1p, tanh (and sigmoid, softplus, elu, powc, which
/// are built from them) are generated.
enum class MathMode : uint8_t {
  /// Vectorised Cephes/fdlibm-style approximations emitted inline as IR
  /// (llvm/vector_math.h): full-width SIMD, accuracy documented and tested.
  Polynomial,
  /// LLVM intrinsics (llvm.exp, llvm.log, llvm.tanh) and libm calls. Without
  /// a vector math library, x86 codegen scalarises them into one libm call
  /// per lane; kept for comparison and as an accuracy fallback.
  Libm,
};

/// Where θ-gradient nests become GEMMs over the lanes (llvm/lane_gemm.h).
enum class LaneGemm : uint8_t {
  /// Where it pays and rounds as the element-wise lowering: one term X * Y
  /// (a field's VJP, an Euler step's), at least 32768 multiply-adds. Then
  /// the C++ backend, which keeps the element-wise form, gives the same
  /// bits. With more terms (an RK4 step's four stages) the element-wise
  /// lowering's one reduction per weight is shared by the terms and costs
  /// about as much, while the GEMM would cost compile time.
  Auto,
  /// Every nest of the right shape, however small, the terms summed one
  /// after another (tests: within rounding of the element-wise form).
  Always,
};

struct CompileOptions {
  MathMode math = MathMode::Polynomial;
  /// Optimisation pipeline of the new pass manager: 0..3 (O0..O3).
  int opt_level = 3;
  /// Let LLVM unroll loops (fully or partly). Kernels already do one SIMD
  /// operation per scalar op of the math, so unrolling their small static
  /// loops gains little, while it multiplies the IR (5x for a fused RK4 VJP)
  /// and the compile time with it. Off by default so that a model recompiles
  /// in well under a second; `plastic bench-kernels` measures both.
  bool unroll_loops = false;
  /// Target CPU; empty = the host (llvm::sys::getHostCPUName()).
  std::string cpu;
  /// Target features ("+avx2,+fma,..."); empty = the host's when `cpu` is
  /// empty, the CPU's defaults otherwise.
  std::string features;
  /// Allow a*b+c to be fused into an FMA (LLVM's `contract` flag).
  bool contract = true;
  /// Also emit `<name>__packed(const uint64_t* slots)` per kernel (args.h).
  bool packed_entries = false;
  /// Which θ-gradient nests are lowered as GEMMs over the lanes
  /// (llvm/lane_gemm.h); the others keep the element-wise lowering.
  LaneGemm lane_gemm = LaneGemm::Auto;
};

/// What one kernel's compilation cost: its lowering, optimisation and
/// codegen; from the cache, its lowering (the key hashes the IR) and loading.
struct KernelCompileTime {
  std::string kernel; ///< the loop function's name
  double ms = 0;      ///< lowering, the O-level pipeline and codegen of this kernel
  bool cached = false;
};

/// Where compile time went (milliseconds). When kernels compile on several
/// threads the three phases are summed over threads (the work done) and
/// wall_ms is the time it took; single-threaded paths leave wall_ms at 0.
struct CompileStats {
  double lower_ms = 0;    ///< loop IR -> LLVM IR (incl. verification)
  double optimize_ms = 0; ///< the O-level pipeline
  double codegen_ms = 0;  ///< instruction selection, register allocation, (JIT) linking
  double wall_ms = 0;     ///< elapsed, when the phases ran on several threads
  int threads = 1;        ///< compile threads used
  int kernels = 0;        ///< kernels (objects) compiled or taken from the cache
  int cached = 0;         ///< of which taken from the on-disk object cache
  /// Kernel by kernel, in the module's order (the LLVM backend's kernels only).
  std::vector<KernelCompileTime> per_kernel;
  double total_ms() const { return lower_ms + optimize_ms + codegen_ms; }
};

/// One line for people: "lower 12 ms, optimise 640 ms, codegen 410 ms on
/// 2 threads (wall 540 ms); 3 of 11 kernels from the cache".
std::string describe(const CompileStats& stats);

/// Samples per tile that fill the widest SIMD register of the target the
/// options resolve to: 16 x f32 / 8 x f64 with AVX-512, 8 / 4 with AVX,
/// 4 / 2 otherwise. A tile as wide as the register makes every scalar
/// operation of the math exactly one vector instruction.
int target_lanes(loops::ElemType type, const CompileOptions& options = {});

/// The target triple, CPU name and feature string ("+avx2,+fma,...") that
/// options resolve to on this machine: what the C++ backend hands Clang so
/// that both backends compile for the same machine.
struct TargetSpec {
  std::string triple;
  std::string cpu;
  std::string features;
};
TargetSpec target_spec(const CompileOptions& options = {});

/// "x86_64-pc-linux-gnu, cpu znver4, +avx2,+fma,...": the target the
/// options resolve to on this machine.
std::string describe_target(const CompileOptions& options = {});

/// The CPU names LLVM knows for this machine's architecture, sorted (what
/// `--target` accepts besides "native"). LLVM itself only warns about an
/// unknown name and falls back to generic code, so callers check first.
std::vector<std::string> known_cpus();

} // namespace plastic::backend
