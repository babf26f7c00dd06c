// Factoring sums of products that share an operand (distributivity).
//
//   contract(s, a, c) ± contract(s, b, c)  →  contract(s, a ± b, c)
//   a ⊙ c ± b ⊙ c                          →  (a ± b) ⊙ c
//
// when both products have the same einsum spec (for contractions), the same
// node c in the same operand position, and a and b have the same shape. The
// sum a ± b is the size of an operand, never larger than the loop space of
// the product it saves, so the rewrite never costs more.
//
// Why the fused solver steps need it: rk4's second and third stages sit at
// the same time node, so every factor of the field that depends only on t
// and the inputs is one node for both. In a fast weight programmer's step
// the state update z1 = z0 + h Σ bᵢ eᵢ ⊗ kᵢ (after reassociate.h) then
// holds two rank-1 terms with the same key k₂ = k₃; factored, it is three
// terms — one multiply-add fewer per element of the fast weights, in the
// step and again where its VJP writes z̄0. Results equal the original up
// to floating-point re-association.
//
// The pass flattens each maximal tree of additions, subtractions and
// negations (through nodes used once only, so nothing shared is computed
// twice) into signed terms, merges the largest group of terms that share
// an operand, and repeats until no two terms share one. Only products that
// nothing else uses take part (one still needed elsewhere would be computed
// twice), and the sum of the others is factored the same way: rk4's stages
// at one time node are often scaled by the same h.
#pragma once

#include "compiler/ir/function.h"

namespace plastic::passes {

/// The function with every sum of products that share an operand factored.
ir::Function factor_shared_operands(const ir::Function& f);

} // namespace plastic::passes
