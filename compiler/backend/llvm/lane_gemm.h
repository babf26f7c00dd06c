// A θ-gradient nest lowered as a GEMM over the lanes (loops/bilinear.h).
//
//   U[r, c] += sum_k ± sum_l X_k[r, l] Y_k[c, l]
//
// Element by element each weight costs a product per term and a horizontal
// reduction of L lanes; here the nest becomes a register-blocked matrix
// product with the lanes as its inner dimension:
//   * per chunk of C column vectors (C·L columns), each Y_k is transposed
//     (log2 L levels of shuffles per L x L block) into a stack buffer
//     T[k·L + l][c] — straight from Y_k's buffer when Y_k is one load, else
//     from its values at L columns — once per call, not once per row;
//   * per block of R rows and term, the R·C vectors of sums over l of
//     X_k[r, l] (broadcast from X_k's own buffer) times T's vectors, added
//     in halves as a lane sum is (below); then U += the block, one vector
//     load-add-store per L weights, masked at the last row block and column
//     vector.
// The transposition and the blocked product are two small internal
// functions of the module (one per type, width and R x C), called by every
// nest: a nest costs a few dozen instructions of its own, so compile time
// grows little with the number of nests. R and C come from a cycle model
// over the target's vector registers and T's L1 budget. The nest needs
// every X_k to be one load of a varying buffer and X_k and U to be affine
// in the flattened row number (the dense layers' gradients are);
// CompileOptions::lane_gemm says which of those nests to take.
//
// Rounding: each product is rounded and the L products of a weight added
// in the halving order of the element-wise lowering's lane sum, so a nest
// of one term X * Y gives the same bits as that lowering (and as the C++
// backend, whose f32 training runs must match the LLVM backend's). The
// gain is in the instructions: per L weights, L products and L - 1 sums
// of full vectors instead of L products, 2(L - 1) shuffles and L - 1 sums.
//
// Internal header of compiler/backend/llvm/: nothing outside that folder includes it.
#pragma once

#include <cstdint>

#include <llvm/IR/IRBuilder.h>

#include "compiler/backend/llvm/options.h"
#include "compiler/loops/bilinear.h"

namespace plastic::backend::detail {

/// What the lane-GEMM lowering needs from the function being lowered.
class LoweringContext {
public:
  virtual ~LoweringContext() = default;
  virtual llvm::IRBuilder<>& builder() = 0;
  /// Sets a loop's induction variable (nullptr: closes it) and forgets the
  /// expressions evaluated so far.
  virtual void set_loop(uint32_t loop, llvm::Value* iv) = 0;
  /// Expression `e` at the current induction variables, as an L-vector.
  virtual llvm::Value* varying(uint32_t e) = 0;
  /// Address of `buf` at `index` (of lane 0, for a varying buffer).
  virtual llvm::Value* address(uint32_t buf, uint32_t index) = 0;

protected:
  LoweringContext() = default;
  LoweringContext(const LoweringContext&) = default;
  LoweringContext& operator=(const LoweringContext&) = default;
};

/// Emits `nest` (matched in `fn`) at the builder's insertion point for a
/// target whose vector registers hold `register_bytes` (vector_register_bytes
/// in target.h) and returns true — or emits nothing and returns false when
/// the nest is not of the shape the kernel takes (a row side that is not
/// one load, or not affine in the flattened row) or not one `when`
/// (CompileOptions::lane_gemm) asks for, or L is not a power of two of at
/// least 2 (the transposition's stages); the nest's loops are closed
/// afterwards.
bool lower_lane_gemm(const loops::Function& fn, const loops::BilinearLaneSum& nest,
                     LoweringContext& cx, int register_bytes, LaneGemm when);

} // namespace plastic::backend::detail
