// Parameter gradients as GEMMs over the lanes: recognising a loop nest
//
//   for r... { for c { U[... + c] += lanesum(sum_k ± X_k(r) * Y_k(c)) } }
//
// — the θ-gradient of a dense layer (U = W̄, X = the output cotangent, Y =
// the layer's input), summed over the stages of a fused solver step. Per
// weight it is a dot product over the L samples of the tile, so over the
// nest it is a matrix product whose inner dimension is the lanes:
// U[r, c] += sum_k sum_l X_k[r, l] Y_k[c, l]. Lowered element by element,
// every weight costs a product and a horizontal reduction; lowered as a
// GEMM (one operand transposed once per call, the other's lanes broadcast)
// it costs about one FMA per weight and lane. This file only recognises the
// nest; the LLVM backend (backend/llvm/lane_gemm.h) lowers it.
//
// What matches (anything else is left to the ordinary lowering):
//   * a perfect nest: every loop's body is one loop (comments aside), the
//     innermost one store of mode AddLaneSum whose value does not read its
//     target;
//   * the column loop: the innermost one whose stride in the target index is
//     1; the row loops: all others, outermost first (any stride, 0 too:
//     rows may add into the same weights);
//   * the value: a sum (+, -, negation, fma) of terms, each a product
//     (*, negation) of factors that depend on row loops only (the X side:
//     at least one, varying) or on the column loop or on neither (the Y
//     side: at least one that depends on the column loop).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/loops/loop_ir.h"

namespace plastic::loops {

/// One term ± X(r) * Y(c) of a bilinear lane sum; each side is the product
/// of its factors (expression ids).
struct BilinearTerm {
  std::vector<uint32_t> row_factors; ///< depend on row loops only (at least one)
  std::vector<uint32_t> col_factors; ///< depend on the column loop or on no loop of the nest
  bool negate = false;
};

/// A recognised nest (see the file comment).
struct BilinearLaneSum {
  const Stmt* store = nullptr;     ///< the AddLaneSum store, innermost
  uint32_t col_loop = kNone;       ///< the loop with unit stride in the target index
  std::vector<uint32_t> row_loops; ///< the other loops of the nest, outermost first
  std::vector<BilinearTerm> terms;

  /// Iterations of the column loop, and of all row loops together.
  int64_t columns(const Function& fn) const;
  int64_t rows(const Function& fn) const;
  /// The stride of `index` in the flattened row number (the row loops'
  /// iterations counted row-major, outermost first) if `index` is affine in
  /// it, the column loop's term aside: U's rows and X's loads usually are.
  std::optional<int64_t> row_stride(const Function& fn, const Index& index) const;
};

/// The nest rooted at `loop` (a Loop statement of `fn`), if it is one.
std::optional<BilinearLaneSum> match_bilinear_lane_sum(const Function& fn, const Stmt& loop);

} // namespace plastic::loops
