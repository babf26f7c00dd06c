// A model's kernels compiled to relocatable objects, one object per kernel,
// on several threads and through the on-disk object cache — what the JIT
// links. Kernels share nothing (each is one fused loop nest with its own
// copies of the vector math), so they lower, optimise and codegen
// independently: each worker owns its LLVMContext and TargetMachine, takes
// the largest kernel not yet taken, and looks the kernel's unoptimised IR up
// in the cache before running the O-level pipeline and instruction
// selection. On two cores this halves a model's first compile; a cached
// model links in milliseconds.
//
// $PLASTIC_COMPILE_THREADS caps the workers (default: the hardware threads).
//
// Internal header of compiler/backend/llvm/: nothing outside that folder includes it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compiler/backend/llvm/options.h"
#include "compiler/loops/loop_ir.h"

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace plastic::backend::detail {

class ObjectCache;

struct KernelObject {
  std::string kernel;                         ///< the loop function's name
  std::vector<std::string> symbols;           ///< what the object defines for callers
  std::unique_ptr<llvm::MemoryBuffer> object; ///< ELF (or the target's) relocatable object
  bool from_cache = false;
  double ms = 0; ///< what compiling it took (lowering included)
};

/// Compiles every function of `module` for `spec` with `options`. Throws
/// what lowering throws (InternalError for malformed loop IR, CodegenError
/// when the target cannot emit objects); `stats` sums each phase over the
/// workers and records the wall time, thread count and cache hits.
/// `background` runs the workers at the lowest CPU priority (nice 19), so
/// that work the user waits for is not slowed by work done ahead of need.
std::vector<KernelObject> compile_kernel_objects(const loops::Module& module,
                                                 const TargetSpec& spec,
                                                 const CompileOptions& options,
                                                 const ObjectCache& cache, CompileStats& stats,
                                                 bool background = false);

} // namespace plastic::backend::detail
