// Hand-built loop programs shared by the code generator tests: the shapes of
// computation the tensor-IR lowering will produce for fast-weight models.
#pragma once

#include <cstdint>

#include "compiler/loops/loop_builder.h"

namespace plastic::backend::test {

using namespace ::plastic::loops;

/// y[i] = a long elementwise chain of every unary/binary op of x[i], with
/// uniform parameters theta[0..3] and the scalar t mixed in.
/// (ctx, t, x: varying[n] ro, theta: uniform[4] ro, y: varying[n])
Function elementwise_chain(ElemType type, int lanes, int64_t n);

/// Multi-head fast-weight matvec y[h,i] = sum_j W[h,i,j] k[h,j].
/// (ctx, W: varying[H*D*D] ro, k: varying[H*D] ro, y: varying[H*D], scratch)
Function matvec(ElemType type, int lanes, int64_t heads, int64_t d);

/// Delta-rule update in place: W[h] += beta * (v[h] - W[h] k[h]) (x) k[h],
/// the residual kept in a varying scratch buffer.
/// (ctx, beta: scalar, W: varying[H*D*D], k, v: varying[H*D] ro, scratch)
Function delta_update(ElemType type, int lanes, int64_t heads, int64_t d);

/// y = softmax(x) over n elements (max-shifted; loop-carried max and sum).
/// (ctx, x: varying[n] ro, y: varying[n], scratch)
Function softmax(ElemType type, int lanes, int64_t n);

/// VJP of y = W x + b with W, b in theta (uniform): theta_bar += lane sums,
/// x_bar (nullable) += W^T y_bar.
/// (ctx, theta: uniform[m*n+m] ro, x: varying[n] ro, y_bar: varying[m] ro,
///  theta_bar: uniform[m*n+m], x_bar: varying[n] nullable, scratch)
Function linear_vjp(ElemType type, int lanes, int64_t m, int64_t n);

/// Gradient of a weight shared by all heads, y[h,i] = sum_j W[i,j] x[h,j]:
/// per-lane partial sums in a varying scratch buffer over the heads, one
/// lane sum per weight at the end.
/// (ctx, x: varying[H*D] ro, y_bar: varying[H*D] ro, W_bar: uniform[D*D], scratch)
Function shared_weight_grad(ElemType type, int lanes, int64_t heads, int64_t d);

/// The Delta-rule CDE field of DESIGN.md with the ABI's field signature:
///   k = softmax(Wk[h] dx), v = tanh(Wv[h] x - W[h] k), beta = sigmoid(wb[h].x),
///   dW[h] = beta v (x) k.
/// (ctx, t, z = W: varying[H*D*D] ro, theta: uniform ro, u = [x, dx]: varying[2*d_in] ro,
///  dz: varying[H*D*D], scratch)
Function delta_field(ElemType type, int lanes, int64_t d_in, int64_t heads, int64_t d);
/// Parameter count of delta_field.
int64_t delta_field_params(int64_t d_in, int64_t heads, int64_t d);

} // namespace plastic::backend::test
