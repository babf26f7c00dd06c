// Transcendental functions as inline LLVM IR, for scalars and SIMD vectors.
//
// LLVM has intrinsics for exp, log and (since 19) tanh, but on x86 without a
// vector math library the backend scalarises them: an <8 x float> llvm.exp
// becomes eight calls to libm's expf. Kernels spend much of their time in
// these functions (tanh, sigmoid, softmax's exp in every fast-weight
// update), so in MathMode::Polynomial they are emitted here as branch-free
// polynomial code that runs at full SIMD width, in the style of Cephes and
// fdlibm:
//
//   exp    x = k ln2 + r (Cody–Waite, |r| <= ln2/2), e^r = 1 + expm1(r) with a
//          Taylor polynomial (f64, degree 13) or Cephes' minimax (f32), times
//          2^k built from exponent bits in two steps (exact into subnormals)
//   expm1  same reduction; 2^k * expm1(r) + (2^k - 1) fused, no cancellation
//   log    fdlibm's: x = 2^k m, m in [sqrt(1/2), sqrt(2)), s = f/(2+f) and an
//          odd minimax polynomial in s (Lg1..Lg7; f32 uses Lg1..Lg4)
//   log1p  fdlibm's: log(u), u = 1 + x rounded, corrected by ((1 + x) - u)/u
//   tanh   Cephes: |x| < 0.625 rational (f64) / polynomial (f32) in x^2,
//          else 1 - 2 / (exp(2|x|) + 1), sign restored
//   sigmoid (x >= 0 ? 1 : e) / (1 + e), e = exp(-|x|): one division, no overflow
//   softplus max(x,0) + log1p(e), e = exp(-|x|), with the log kernel fed
//          f = e or (e - 1)/2 plus its exact rounding error (1 + e is never
//          rounded)
//   elu    x > 0 ? x : alpha expm1(x)
//   powc   integer p (|p| <= 64): square-and-multiply (1/x^|p| for p < 0);
//          p = 1/2: sqrt; otherwise exp(p log x) (error grows with |p log x|)
//
// Special values follow libm: NaN in, NaN out; exp(+inf) = inf, exp(-inf) =
// 0, overflow to inf and underflow through subnormals to 0; log(0) = -inf,
// log(x < 0) = NaN; tanh(+-inf) = +-1; sigmoid(+-inf) = 1, 0. The sign of a
// zero result is not guaranteed (expm1(-0) may be +0).
//
// Accuracy, measured by tests/compiler/backend/vector_math_test.cpp against long
// double libm (10^6 points per function and type by default, 10^7 and an
// exhaustive f32 sweep of |x| in [2^-8, 2^7) in the [slow] cases), max over
// normal results; the tests assert f64 <= 1e-15, f32 <= 2e-7 relative:
//
//            f64: max ulp  max rel     f32: max ulp  max rel
//   exp           0.96     1.5e-16          1.01     8.5e-8
//   expm1         1.76     2.4e-16          1.40     1.2e-7
//   log           0.83     1.5e-16          0.84     8.2e-8
//   log1p         0.78     1.5e-16          0.84     8.2e-8
//   tanh          1.32     2.6e-16          1.33     1.4e-7
//   sigmoid       2.31     3.2e-16          2.40     1.8e-7
//   softplus      1.60     2.4e-16          1.64     1.3e-7
//
// Throughput on the test machine (Zen 5, AVX-512 host, 256-bit tiles): f32
// exp 0.44 ns, tanh 0.70 ns, sigmoid 0.52 ns per element, 4-16x faster than
// the scalarised intrinsics/libm calls (bench/kernel_bench.cpp).
//
// sin and cos always use the llvm.sin / llvm.cos intrinsics (libm per lane).
//
// Internal header of compiler/backend/llvm/: nothing outside that folder includes it.
#pragma once

#include <llvm/IR/IRBuilder.h>

#include "compiler/backend/llvm/options.h"
#include "compiler/loops/loop_ir.h"

namespace plastic::backend::detail {

/// Emits op(x) for Exp, Expm1, Log, Log1p, Tanh, Sigmoid, Softplus, Elu, Sin,
/// Cos and PowC. `x` is float/double or a fixed vector of them; `attr` is
/// elu's alpha or powc's exponent.
llvm::Value* emit_math(llvm::IRBuilderBase& b, loops::UnaryOp op, llvm::Value* x, double attr,
                       MathMode mode);

/// True for the ops emit_math handles.
bool is_math_op(loops::UnaryOp op);

} // namespace plastic::backend::detail
