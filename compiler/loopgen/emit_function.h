// Emitting a tensor-IR function into a loop-IR kernel under construction.
//
// This is the bridge between the two IRs of the compiler: compiler/ir holds
// what to compute (an ir::Function: a DAG over tensors of static shape),
// compiler/loops holds how (a loop function over a tile of L lane-
// interleaved samples). The caller — the model assembler
// (compiler/abi/) or a test — declares the kernel's C signature on a
// loops::Builder (the ABI's parameters, in order), says where every input
// leaf of the ir::Function lives (a slice of a parameter buffer, or a scalar
// parameter) and where every output goes (stored, accumulated per lane, or
// summed over the lanes into a shared buffer), and calls emit_function. It
// may call emit_function several times on one builder (e.g. a kernel that
// evaluates two IR functions), then finish() the builder.
//
// Semantics: exactly those of the reference interpreter (compiler/interp),
// lane by lane. Uniform vs varying: a node is uniform when every leaf it
// depends on is uniform (parameters θ, t, h, constants), else varying; uniform
// intermediates are computed once per call as scalars.
//
// Schedule: non-elementwise nodes (contractions, reductions, composites,
// concat/pad) and nodes used more than once are materialised in scratch
// buffers; single-use elementwise chains, broadcasts, reshapes and slices are
// fused into the loop of their consumer as index arithmetic. Contractions are
// loop nests accumulating in registers (fma). Nothing is unrolled by the
// emitter (LLVM decides), so compile time stays proportional to the DAG size.
// Scratch buffers whose last use has passed are reused.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "compiler/ir/function.h"
#include "compiler/loops/loop_builder.h"

namespace plastic::loopgen {

/// Where an input leaf of the ir::Function lives in the kernel.
struct InputBinding {
  enum class Kind : uint8_t {
    Buffer, ///< elements [offset, offset + numel) of `buffer` (row-major), per sample when varying
    Scalar, ///< a uniform scalar expression (a double parameter: t, h), rank-0 leaves only
    Zero,   ///< the leaf is identically zero (e.g. an input the ABI does not pass)
  };
  Kind kind = Kind::Buffer;
  loops::Buffer buffer;
  int64_t offset = 0;
  loops::Expr scalar;
  /// Likely out of the caches (a tape's state): prefetched ahead of its
  /// first read (prefetch.h).
  bool cold = false;

  static InputBinding in(loops::Buffer b, int64_t offset = 0) {
    return {Kind::Buffer, b, offset, {}, false};
  }
  static InputBinding value(loops::Expr e) { return {Kind::Scalar, {}, 0, e, false}; }
  static InputBinding zero() { return {Kind::Zero, {}, 0, {}, false}; }
};

/// Where an output of the ir::Function goes.
struct OutputBinding {
  enum class Kind : uint8_t {
    Buffer,  ///< elements [offset, offset + numel) of `buffer`
    Discard, ///< not needed by this kernel (dead code is not emitted)
  };
  Kind kind = Kind::Buffer;
  loops::Buffer buffer;
  int64_t offset = 0;
  /// Set (=), Add (+=, same lanes) or AddLaneSum (uniform buffer += sum over
  /// lanes of a varying value: θ gradients). A uniform value stored into a
  /// varying buffer is broadcast to every lane. A value stored with
  /// AddLaneSum that happens to be uniform is multiplied by L.
  loops::StoreMode mode = loops::StoreMode::Set;
  /// Multiplies the value before it is stored (e.g. -1 for the adjoint's
  /// -aᵀ∂f/∂θ written into a buffer, or a quadrature weight).
  double scale = 1.0;

  static OutputBinding to(loops::Buffer b, int64_t offset = 0,
                          loops::StoreMode mode = loops::StoreMode::Set, double scale = 1.0) {
    return {Kind::Buffer, b, offset, mode, scale};
  }
  static OutputBinding discard() { return {Kind::Discard, {}, 0, loops::StoreMode::Set, 1.0}; }
};

/// Emits `fn` into `b`. `inputs[i]` binds fn.inputs()[i]; `outputs[j]` binds
/// fn.outputs()[j]. Outputs bound to a nullable buffer are emitted inside
/// if_present (only the work they alone need). Throws plastic::InternalError
/// for an ill-formed binding (sizes, lane classes) or an op it cannot lower
/// — a bug of the caller or of the emitter, never of the user.
void emit_function(loops::Builder& b, const ir::Function& fn, std::span<const InputBinding> inputs,
                   std::span<const OutputBinding> outputs);

/// Convenience for tests and `plastic emit --loops`: one kernel with the
/// signature `name(ctx, <scalar for each rank-0 Time/Arg input named t or h>,
/// <one readonly buffer per other input, varying unless it is a Param>,
/// <one buffer per output, varying unless every leaf it depends on is a
/// Param or constant>, scratch)`, outputs stored with Set.
loops::Function emit_standalone(const ir::Function& fn, loops::ElemType type, int lanes = 0,
                                const std::string& name = "");

} // namespace plastic::loopgen
