// Random arguments for one call of a compiled kernel, built from nothing but
// its loop-IR signature. The kernel benchmarks (`plastic bench-kernels`,
// bench/kernel_bench.cpp) time kernels of arbitrary models on synthetic data,
// so they need every pointer a kernel dereferences to point at memory of the
// right size with values that keep the model's activations in range; one
// helper keeps the two benchmarks measuring the same thing.
#pragma once

#include "compiler/loops/args.h"
#include "compiler/loops/loop_ir.h"

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

namespace plastic::abi {

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};
/// Memory from aligned_block: freed with std::free.
using AlignedBlock = std::unique_ptr<void, AlignedFree>;

/// At least `bytes` (and at least one cache line), 64-byte aligned, rounded
/// up to whole cache lines: kernels may load full vectors at any array start.
AlignedBlock aligned_block(size_t bytes);

/// The arguments of one call and the memory they point to.
struct KernelArgs {
  std::vector<AlignedBlock> blocks; ///< the memory this call owns
  loops::Args args;                 ///< packed, in Function::params order
};

/// Arguments for one call of `f`: the scalar named `h` gets `step`, every
/// other scalar (the time) 0.3; opaque parameters (ctx) are NULL; the scratch
/// parameter gets an arena of f.scratch_bytes; every buffer, nullable ones too
/// (so optional cotangents are computed and timed), is filled with
/// U(-0.5, 0.5), scaled by 0.2 for uniform buffers (shared weights) so that
/// activations stay O(1).
///
/// With `share` (the arguments of another call of the same kernel), the
/// uniform buffers (parameters and their cotangents) and the scratch arena
/// are share's, as the runtime shares them between the tiles one thread
/// processes; only the per-sample buffers are new. `share` must outlive the
/// result.
KernelArgs random_kernel_args(const loops::Function& f, double step, std::mt19937_64& rng,
                              const KernelArgs* share = nullptr);

} // namespace plastic::abi
