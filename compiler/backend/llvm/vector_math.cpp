// Transcendental functions as inline LLVM IR (vector_math.h).
//
// Every routine is branch-free: both sides of a range split are computed and
// blended with selects, so one code path serves all lanes of a vector.
// Coefficients: Cephes (S. L. Moshier) for exp/tanh; fdlibm (Sun
// Microsystems, as in musl) for log.
#include "compiler/backend/llvm/vector_math.h"

#include <cmath>
#include <initializer_list>
#include <utility>

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include "compiler/loops/error.h"

namespace plastic::backend::detail {

using namespace ::plastic::loops;

namespace {

using llvm::Value;

class Math {
public:
  Math(llvm::IRBuilderBase& b, llvm::Type* ty, MathMode mode) : b_(b), ty_(ty), mode_(mode) {
    f32_ = ty->getScalarType()->isFloatTy();
    PLASTIC_CHECK(f32_ || ty->getScalarType()->isDoubleTy(), "vector math on a non-float type");
    ity_ = ty->getWithNewType(b.getIntNTy(f32_ ? 32 : 64));
    i32ty_ = ty->getWithNewType(b.getInt32Ty());
  }

  Value* emit(UnaryOp op, Value* x, double attr) {
    switch (op) {
    case UnaryOp::Exp:
      return exp(x);
    case UnaryOp::Expm1:
      return expm1(x);
    case UnaryOp::Log:
      return log(x);
    case UnaryOp::Log1p:
      return log1p(x);
    case UnaryOp::Tanh:
      return tanh(x);
    case UnaryOp::Sigmoid:
      return sigmoid(x);
    case UnaryOp::Softplus:
      return softplus(x);
    case UnaryOp::Elu:
      return sel(b_.CreateFCmpOGT(x, c(0)), x, b_.CreateFMul(c(attr), expm1(x)));
    case UnaryOp::Sin:
      return b_.CreateUnaryIntrinsic(llvm::Intrinsic::sin, x);
    case UnaryOp::Cos:
      return b_.CreateUnaryIntrinsic(llvm::Intrinsic::cos, x);
    case UnaryOp::PowC:
      return powc(x, attr);
    default:
      break;
    }
    PLASTIC_CHECK(false, "emit_math on op {}", op_name(op));
    return nullptr;
  }

private:
  // ---- helpers ----------------------------------------------------------------

  Value* c(double v) { return llvm::ConstantFP::get(ty_, v); }
  Value* ci(int64_t v) { return llvm::ConstantInt::get(ity_, static_cast<uint64_t>(v), true); }
  Value* sel(Value* cond, Value* a, Value* b) { return b_.CreateSelect(cond, a, b); }
  Value* isnan(Value* x) { return b_.CreateFCmpUNO(x, x); }
  Value* fabs(Value* x) { return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x); }
  // a*b + c, fused where the target has FMA, two roundings otherwise.
  Value* fmad(Value* a, Value* b, Value* c) {
    return b_.CreateIntrinsic(llvm::Intrinsic::fmuladd, {ty_}, {a, b, c});
  }
  // Horner: coefficients from the highest degree down.
  Value* horner(Value* x, std::initializer_list<double> coeffs) {
    auto it = coeffs.begin();
    Value* acc = c(*it++);
    for (; it != coeffs.end(); ++it)
      acc = fmad(acc, x, c(*it));
    return acc;
  }
  // Clamp that maps NaN to a bound (callers restore NaN with a final select);
  // keeps float-to-int conversions of the lanes defined.
  Value* clamp(Value* x, double lo, double hi) {
    return b_.CreateMaxNum(b_.CreateMinNum(x, c(hi)), c(lo));
  }
  // Integer-valued float (|k| < 2^31) to the integer type of the lane width.
  // Through i32 for f64: cvttpd2dq exists on AVX2, a 64-bit conversion does not.
  Value* to_int(Value* k) {
    Value* k32 = b_.CreateFPToSI(k, i32ty_);
    return f32_ ? k32 : b_.CreateSExt(k32, ity_);
  }
  // 2^n for integer n inside the normal exponent range, from exponent bits.
  Value* pow2(Value* n) {
    const int bias = f32_ ? 127 : 1023, mant = f32_ ? 23 : 52;
    return b_.CreateBitCast(b_.CreateShl(b_.CreateAdd(n, ci(bias)), ci(mant)), ty_);
  }
  // y * 2^n in two exact steps, so n may reach the overflow and subnormal
  // ranges (|n| up to twice the exponent range).
  Value* scale(Value* y, Value* n) {
    Value* n1 = b_.CreateAShr(n, ci(1));
    Value* n2 = b_.CreateSub(n, n1);
    return b_.CreateFMul(b_.CreateFMul(y, pow2(n1)), pow2(n2));
  }

  // ---- exp family ----------------------------------------------------------------

  struct Reduced {
    Value* k; // integer-valued float
    Value* r; // x - k ln2, |r| <= ln2/2 (+ rounding)
  };
  // Cody–Waite: ln2 = C1 + C2 with C1 short enough that k*C1 is exact.
  Reduced reduce(Value* x) {
    const double c1 = f32_ ? 0.693359375 : 6.93145751953125e-1;
    const double c2 = f32_ ? -2.12194440e-4 : 1.42860682030941723212e-6;
    Value* k = b_.CreateUnaryIntrinsic(llvm::Intrinsic::rint, b_.CreateFMul(x, c(M_LOG2E)));
    Value* r = fmad(k, c(-c1), x);
    return {k, fmad(k, c(-c2), r)};
  }
  // expm1(r) for |r| <= ln2/2: r + r^2 q(r).
  Value* expm1_poly(Value* r) {
    Value* q;
    if (f32_) { // Cephes expf minimax
      q = horner(r, {1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
                     1.6666665459e-1, 5.0000001201e-1});
    } else { // Taylor to r^13/13!: truncation < 1e-17 relative on the interval
      q = horner(r, {1.0 / 6227020800, 1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800, 1.0 / 362880,
                     1.0 / 40320, 1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 0.5});
    }
    return fmad(b_.CreateFMul(r, r), q, r);
  }
  // Clamp bounds beyond which exp over/underflows anyway (see exp()).
  double exp_lo() const { return f32_ ? -104.0 : -746.0; }
  double exp_hi() const { return f32_ ? 89.0 : 710.0; }

  Value* exp(Value* x) {
    if (mode_ == MathMode::Libm) return b_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, x);
    // Clamped inputs still over/underflow to inf/0 through scale(): e.g. f64
    // 710 -> 1.24 * 2^1024 = inf, -746 -> 0.84 * 2^-1076 rounds to 0.
    Reduced red = reduce(clamp(x, exp_lo(), exp_hi()));
    Value* y = b_.CreateFAdd(c(1.0), expm1_poly(red.r));
    y = scale(y, to_int(red.k));
    return sel(isnan(x), x, y);
  }

  // exp(y) for 0 <= y <= 40 (no NaN): exp()'s reduction and polynomial, one
  // power of two for its scaling (tanh's polynomial mode only).
  Value* exp_below(Value* y) {
    Reduced red = reduce(y);
    Value* p = b_.CreateFAdd(c(1.0), expm1_poly(red.r));
    return b_.CreateFMul(p, pow2(to_int(red.k)));
  }

  Value* expm1(Value* x) {
    if (mode_ == MathMode::Libm) return per_lane(f32_ ? "expm1f" : "expm1", x);
    // Beyond +-T the result is exp(x) (the -1 is below half an ulp) or -1.
    const double T = f32_ ? 20.0 : 40.0, kmax = f32_ ? 30.0 : 60.0;
    Reduced red = reduce(clamp(x, exp_lo(), exp_hi()));
    Value* p = expm1_poly(red.r);
    Value* big = scale(b_.CreateFAdd(c(1.0), p), to_int(red.k));
    // 2^k (1 + p) - 1 = 2^k p + (2^k - 1): 2^k - 1 is exact for the k of
    // |x| <= T, and the single fused rounding avoids cancellation.
    Value* t = pow2(to_int(clamp(red.k, -kmax, kmax)));
    Value* small = fmad(t, p, b_.CreateFSub(t, c(1.0)));
    Value* y = sel(b_.CreateFCmpOGT(x, c(T)), big, small);
    y = sel(b_.CreateFCmpOLT(x, c(-T)), c(-1.0), y);
    return sel(isnan(x), x, y);
  }

  // ---- log family ----------------------------------------------------------------

  // fdlibm's kernel: dk*ln2 + log(1 + f) + corr for f in [sqrt(1/2)-1,
  // sqrt(2)-1] (the polynomial's range: beyond it the f64 error grows fast),
  // integer-valued dk, and a small correction `corr`.
  Value* log_core(Value* f, Value* dk, Value* corr) {
    Value* hfsq = b_.CreateFMul(c(0.5), b_.CreateFMul(f, f));
    Value* s = b_.CreateFDiv(f, b_.CreateFAdd(c(2.0), f));
    Value* z = b_.CreateFMul(s, s);
    Value* w = b_.CreateFMul(z, z);
    Value *t1, *t2;
    double ln2_hi, ln2_lo;
    if (f32_) {
      t1 = b_.CreateFMul(w, horner(w, {0xf89e26.0p-26, 0xccce13.0p-25}));
      t2 = b_.CreateFMul(z, horner(w, {0x91e9ee.0p-25, 0xaaaaaa.0p-24}));
      ln2_hi = 6.9313812256e-01;
      ln2_lo = 9.0580006145e-06;
    } else {
      t1 = b_.CreateFMul(w, horner(w, {1.531383769920937332e-01, 2.222219843214978396e-01,
                                       3.999999999940941908e-01}));
      t2 = b_.CreateFMul(z, horner(w, {1.479819860511658591e-01, 1.818357216161805012e-01,
                                       2.857142874366239149e-01, 6.666666666666735130e-01}));
      ln2_hi = 6.93147180369123816490e-01;
      ln2_lo = 1.90821492927058770002e-10;
    }
    Value* R = b_.CreateFAdd(t2, t1);
    // s(hfsq + R) + (k ln2_lo + corr) - hfsq + f + k ln2_hi, in fdlibm's order.
    Value* y = b_.CreateFMul(s, b_.CreateFAdd(hfsq, R));
    y = b_.CreateFAdd(y, b_.CreateFAdd(b_.CreateFMul(dk, c(ln2_lo)), corr));
    y = b_.CreateFSub(y, hfsq);
    y = b_.CreateFAdd(y, f);
    return b_.CreateFAdd(y, b_.CreateFMul(dk, c(ln2_hi)));
  }

  // Splits a positive normal x into 2^k m, m in [sqrt(1/2), sqrt(2)):
  // offsetting the bits by 1 - sqrt(1/2) moves the exponent boundary to
  // sqrt(2). Returns f = m - 1 (exact) and k as a float.
  std::pair<Value*, Value*> split(Value* x) {
    const int64_t one = f32_ ? 0x3f800000 : 0x3ff0000000000000LL;
    const int64_t sqrt_half = f32_ ? 0x3f3504f3 : 0x3fe6a09e00000000LL;
    const int64_t mant_mask = f32_ ? 0x007fffff : 0x000fffffffffffffLL;
    Value* u = b_.CreateAdd(b_.CreateBitCast(x, ity_), ci(one - sqrt_half));
    Value* k = b_.CreateSub(b_.CreateLShr(u, ci(f32_ ? 23 : 52)), ci(f32_ ? 0x7f : 0x3ff));
    Value* m = b_.CreateBitCast(b_.CreateAdd(b_.CreateAnd(u, ci(mant_mask)), ci(sqrt_half)), ty_);
    Value* dk = b_.CreateSIToFP(f32_ ? k : b_.CreateTrunc(k, i32ty_), ty_);
    return {b_.CreateFSub(m, c(1.0)), dk};
  }

  Value* log(Value* x) {
    if (mode_ == MathMode::Libm) return b_.CreateUnaryIntrinsic(llvm::Intrinsic::log, x);
    // Subnormals: scale into the normal range first.
    Value* sub = b_.CreateFCmpOLT(x, c(f32_ ? 0x1p-126 : 0x1p-1022));
    Value* xs = sel(sub, b_.CreateFMul(x, c(f32_ ? 0x1p25 : 0x1p54)), x);
    auto [f, dk] = split(xs);
    dk = b_.CreateFAdd(dk, sel(sub, c(f32_ ? -25.0 : -54.0), c(0.0)));
    Value* y = log_core(f, dk, c(0.0));
    y = sel(b_.CreateFCmpOEQ(x, c(INFINITY)), x, y);
    y = sel(b_.CreateFCmpOEQ(x, c(0.0)), c(-INFINITY), y);
    y = sel(b_.CreateFCmpOLT(x, c(0.0)), c(NAN), y);
    return sel(isnan(x), x, y);
  }

  Value* log1p(Value* x) {
    if (mode_ == MathMode::Libm) return per_lane(f32_ ? "log1pf" : "log1p", x);
    // fdlibm: log(u) for u = 1 + x rounded, plus c/u with c = (1 + x) - u
    // the exact rounding error of u (Sterbenz makes both forms exact).
    // u is never subnormal: 1 + x >= ulp(1) or 0.
    Value* u = b_.CreateFAdd(c(1.0), x);
    Value* err = sel(b_.CreateFCmpOGE(u, c(2.0)), b_.CreateFSub(c(1.0), b_.CreateFSub(u, x)),
                     b_.CreateFSub(x, b_.CreateFSub(u, c(1.0))));
    auto [f, dk] = split(u);
    Value* y = log_core(f, dk, b_.CreateFDiv(err, u));
    y = sel(b_.CreateFCmpOEQ(x, c(INFINITY)), x, y);
    y = sel(b_.CreateFCmpOEQ(x, c(-1.0)), c(-INFINITY), y);
    y = sel(b_.CreateFCmpOLT(x, c(-1.0)), c(NAN), y);
    return sel(isnan(x), x, y);
  }

  // ---- tanh, sigmoid, softplus -------------------------------------------------------

  Value* tanh(Value* x) {
    if (mode_ == MathMode::Libm) return b_.CreateUnaryIntrinsic(llvm::Intrinsic::tanh, x);
    Value* ax = fabs(x);
    // |x| >= 0.625: 1 - 2/(e^{2|x|} + 1), e^{2|x|} as exp() computes it
    // but for 2|x| clamped to T: beyond T the quotient is below half an ulp
    // of 1 (f32 T = 20: 4.1e-9 < 3.0e-8; f64 T = 40: 8.5e-18 < 5.6e-17),
    // so the result is exactly 1 either way, and 2^k of k <= 58 needs one
    // power of two and no overflow or NaN handling (scale() multiplies by
    // two exact powers whose product is the same 2^k): the same bits as
    // exp() in fewer instructions. NaN is restored below.
    Value* e = exp_below(b_.CreateMinNum(b_.CreateFAdd(ax, ax), c(f32_ ? 20.0 : 40.0)));
    Value* big = b_.CreateFSub(c(1.0), b_.CreateFDiv(c(2.0), b_.CreateFAdd(e, c(1.0))));
    big = b_.CreateCopySign(big, x);
    // |x| < 0.625: x + x z P(z)/Q(z), z = x^2 (Cephes).
    Value* z = b_.CreateFMul(x, x);
    Value* small;
    if (f32_) {
      Value* p = horner(z, {-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2,
                            1.33314422036e-1, -3.33332819422e-1});
      small = fmad(b_.CreateFMul(p, z), x, x);
    } else {
      Value* p = horner(
          z, {-9.64399179425052238628e-1, -9.92877231001918586564e1, -1.61468768441708447952e3});
      Value* q = horner(
          z, {1.0, 1.12811678491632931402e2, 2.23548839060100448583e3, 4.84406305325125486048e3});
      small = fmad(b_.CreateFMul(x, z), b_.CreateFDiv(p, q), x);
    }
    return sel(isnan(x), x, sel(b_.CreateFCmpOLT(ax, c(0.625)), small, big));
  }

  Value* sigmoid(Value* x) {
    // x >= 0: 1/(1+e), x < 0: e/(1+e), e = exp(-|x|) <= 1 never overflows.
    Value* e = exp(b_.CreateFNeg(fabs(x)));
    Value* num = sel(b_.CreateFCmpOGE(x, c(0.0)), c(1.0), e);
    return b_.CreateFDiv(num, b_.CreateFAdd(c(1.0), e));
  }

  Value* softplus(Value* x) {
    Value* pos = sel(b_.CreateFCmpOGT(x, c(0.0)), x, c(0.0));
    Value* e = exp(b_.CreateFNeg(fabs(x)));
    if (mode_ == MathMode::Libm) return b_.CreateFAdd(pos, log1p(e));
    // log1p(e) for e in [0, 1] without rounding 1 + e: f = e below
    // sqrt(2) - 1; above, 1 + e = 2 (1 + t/2 + err/2) with t = e - 1 and its
    // rounding error err exact (Fast2Sum, |-1| >= e), and err/2 enters as
    // the first-order correction err / (2 + t).
    Value* lo = b_.CreateFCmpOLT(e, c(M_SQRT2 - 1.0));
    Value* t = b_.CreateFAdd(c(-1.0), e);
    Value* err = b_.CreateFSub(e, b_.CreateFAdd(t, c(1.0)));
    Value* f = sel(lo, e, b_.CreateFMul(t, c(0.5)));
    Value* corr = sel(lo, c(0.0), b_.CreateFDiv(err, b_.CreateFAdd(c(2.0), t)));
    Value* l1p = log_core(f, sel(lo, c(0.0), c(1.0)), corr);
    return b_.CreateFAdd(pos, sel(isnan(x), x, l1p));
  }

  // ---- powc ------------------------------------------------------------------------

  Value* powc(Value* x, double p) {
    if (p == 0.0) return c(1.0); // pow(x, 0) = 1 even for NaN
    if (p == std::trunc(p) && std::fabs(p) <= 64) {
      auto n = static_cast<int64_t>(std::fabs(p));
      Value* result = nullptr;
      Value* base = x;
      for (; n > 0; n >>= 1) { // square and multiply
        if (n & 1) result = result ? b_.CreateFMul(result, base) : base;
        if (n > 1) base = b_.CreateFMul(base, base);
      }
      return p < 0 ? b_.CreateFDiv(c(1.0), result) : result;
    }
    if (p == 0.5) {
      // + 0 turns sqrt(-0) = -0 into pow's +0; pow(-inf, 1/2) = +inf.
      Value* y = b_.CreateFAdd(b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x), c(0.0));
      return sel(b_.CreateFCmpOEQ(x, c(-INFINITY)), c(INFINITY), y);
    }
    const bool integer = p == std::trunc(p);
    Value* y = exp(b_.CreateFMul(c(p), log(integer ? fabs(x) : x)));
    if (integer && std::fmod(std::fabs(p), 2.0) == 1.0) y = b_.CreateCopySign(y, x);
    return y;
  }

  // ---- libm fallback ---------------------------------------------------------------

  // One libm call per lane: what LLVM's own scalarisation of an intrinsic does.
  Value* per_lane(const char* name, Value* x) {
    llvm::Module* mod = b_.GetInsertBlock()->getModule();
    llvm::Type* st = ty_->getScalarType();
    llvm::FunctionCallee fn =
        mod->getOrInsertFunction(name, llvm::FunctionType::get(st, {st}, false));
    if (auto* f = llvm::dyn_cast<llvm::Function>(fn.getCallee())) f->setDoesNotThrow();
    auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(ty_);
    if (!vt) return b_.CreateCall(fn, {x});
    Value* out = llvm::PoisonValue::get(ty_);
    for (unsigned l = 0; l < vt->getNumElements(); ++l)
      out = b_.CreateInsertElement(out, b_.CreateCall(fn, {b_.CreateExtractElement(x, l)}), l);
    return out;
  }

  llvm::IRBuilderBase& b_;
  llvm::Type* ty_;
  llvm::Type* ity_;
  llvm::Type* i32ty_;
  MathMode mode_;
  bool f32_;
};

} // namespace

bool is_math_op(UnaryOp op) {
  switch (op) {
  case UnaryOp::Exp:
  case UnaryOp::Expm1:
  case UnaryOp::Log:
  case UnaryOp::Log1p:
  case UnaryOp::Tanh:
  case UnaryOp::Sigmoid:
  case UnaryOp::Softplus:
  case UnaryOp::Elu:
  case UnaryOp::Sin:
  case UnaryOp::Cos:
  case UnaryOp::PowC:
    return true;
  default:
    return false;
  }
}

llvm::Value* emit_math(llvm::IRBuilderBase& b, UnaryOp op, llvm::Value* x, double attr,
                       MathMode mode) {
  return Math(b, x->getType(), mode).emit(op, x, attr);
}

} // namespace plastic::backend::detail
