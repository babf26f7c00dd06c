// The prelude of generated C++ (prelude.h).
#include "compiler/backend/cpp/prelude.h"

namespace plastic::backend::cpp::detail {

namespace {

// The vector math below is vector_math.cpp's, line for line: Cody–Waite
// reduction and Cephes/fdlibm polynomials, every range split computed on
// both sides and chosen with a select, so that `#pragma omp simd` lane
// loops calling it vectorise instead of calling libm once per lane.
constexpr std::string_view kPrelude =
    R"prelude(// Lane loops are OpenMP SIMD loops where OpenMP SIMD is on (Clang, -fopenmp,
// or -DPLASTIC_OPENMP_SIMD with GCC's -fopenmp-simd); elsewhere plain loops the
// compiler vectorises on its own (GCC warns about an unknown pragma otherwise).
#if defined(_OPENMP) || defined(__clang__) || defined(PLASTIC_OPENMP_SIMD)
#define PLASTIC_SIMD _Pragma("omp simd")
#else
#define PLASTIC_SIMD
#endif

namespace {

// exp, expm1, log, log1p and tanh on one lane without libm, so that the lane
// loops calling them vectorise: Plastic's LLVM backend's vector math
// (compiler/backend/llvm/vector_math.h), the same reductions, coefficients
// and special values (NaN in, NaN out; exp overflows to inf and underflows
// through subnormals to 0; log(0) = -inf, log(x < 0) = NaN). Every range
// split computes both sides and selects. a * b + c in one expression is one
// FMA where the target has FMA (Clang's default -ffp-contract=on).
namespace vm {

template <class F> constexpr bool kF32 = sizeof(F) == 4;
template <class F> using Int = std::conditional_t<kF32<F>, int32_t, int64_t>;
template <class F> using UInt = std::make_unsigned_t<Int<F>>;

template <class F> inline F fmad(F a, F b, F c) { return a * b + c; }
// Horner's rule, coefficients from the highest degree down.
template <class F> inline F horner(F /*x*/, F acc) { return acc; }
template <class F, class... C> inline F horner(F x, F acc, F next, C... rest) {
  return horner<F>(x, fmad(acc, x, next), F(rest)...);
}
// NaN goes to `hi` (callers restore NaN last): conversions to int stay defined.
template <class F> inline F clamp(F x, F lo, F hi) {
  const F y = x < hi ? x : hi;
  return y > lo ? y : lo;
}
// An integer-valued float (|k| < 2^31) as the integer of the lane width.
template <class F> inline Int<F> to_int(F k) {
  return static_cast<Int<F>>(static_cast<int32_t>(k));
}
// 2^n from exponent bits, n in the normal exponent range.
template <class F> inline F pow2(Int<F> n) {
  constexpr int bias = kF32<F> ? 127 : 1023, mantissa = kF32<F> ? 23 : 52;
  return std::bit_cast<F>(static_cast<Int<F>>((n + bias) << mantissa));
}
// y 2^n in two exact steps: n may reach the overflow and subnormal ranges.
template <class F> inline F scale(F y, Int<F> n) {
  const Int<F> n1 = n >> 1, n2 = n - n1;
  return y * pow2<F>(n1) * pow2<F>(n2);
}

// x = k ln2 + r, |r| <= ln2/2 (Cody–Waite: k c1 is exact).
template <class F> struct Reduced {
  F k, r;
};
template <class F> inline Reduced<F> reduce(F x) {
  constexpr F c1 = kF32<F> ? 0.693359375 : 6.93145751953125e-1;
  constexpr F c2 = kF32<F> ? -2.12194440e-4 : 1.42860682030941723212e-6;
  const F k = std::rint(x * F(1.4426950408889634));
  const F r = fmad(k, -c1, x);
  return {k, fmad(k, -c2, r)};
}
// expm1(r) = r + r^2 q(r) for |r| <= ln2/2: Cephes' minimax (f32), Taylor to
// r^13/13! (f64).
template <class F> inline F expm1_poly(F r) {
  F q;
  if constexpr (kF32<F>)
    q = horner<F>(r, 1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
                  1.6666665459e-1, 5.0000001201e-1);
  else
    q = horner<F>(r, 1.0 / 6227020800, 1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800,
                  1.0 / 362880, 1.0 / 40320, 1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24,
                  1.0 / 6, 0.5);
  return fmad(r * r, q, r);
}
// Bounds beyond which exp over/underflows anyway (through scale()).
template <class F> constexpr F kExpLo = kF32<F> ? -104.0 : -746.0;
template <class F> constexpr F kExpHi = kF32<F> ? 89.0 : 710.0;

template <class F> inline F exp(F x) {
  const Reduced<F> red = reduce(clamp(x, kExpLo<F>, kExpHi<F>));
  const F y = scale(F(1) + expm1_poly(red.r), to_int(red.k));
  return std::isnan(x) ? x : y;
}

template <class F> inline F expm1(F x) {
  // Beyond +-big the result is exp(x) (the -1 is below half an ulp) or -1.
  constexpr F big = kF32<F> ? 20.0 : 40.0, kmax = kF32<F> ? 30.0 : 60.0;
  const Reduced<F> red = reduce(clamp(x, kExpLo<F>, kExpHi<F>));
  const F p = expm1_poly(red.r);
  const F large = scale(F(1) + p, to_int(red.k));
  // 2^k (1 + p) - 1 = 2^k p + (2^k - 1), one rounding, no cancellation.
  const F t = pow2<F>(to_int(clamp(red.k, -kmax, kmax)));
  const F small = fmad(t, p, t - F(1));
  F y = x > big ? large : small;
  y = x < -big ? F(-1) : y;
  return std::isnan(x) ? x : y;
}

// fdlibm's kernel: dk ln2 + log(1 + f) + corr, f in [sqrt(1/2) - 1, sqrt(2) - 1].
template <class F> inline F log_core(F f, F dk, F corr) {
  const F hfsq = F(0.5) * (f * f);
  const F s = f / (F(2) + f);
  const F z = s * s;
  const F w = z * z;
  F t1, t2, ln2_hi, ln2_lo;
  if constexpr (kF32<F>) {
    t1 = w * horner<F>(w, 0xf89e26.0p-26, 0xccce13.0p-25);
    t2 = z * horner<F>(w, 0x91e9ee.0p-25, 0xaaaaaa.0p-24);
    ln2_hi = 6.9313812256e-01;
    ln2_lo = 9.0580006145e-06;
  } else {
    t1 = w * horner<F>(w, 1.531383769920937332e-01, 2.222219843214978396e-01,
                       3.999999999940941908e-01);
    t2 = z * horner<F>(w, 1.479819860511658591e-01, 1.818357216161805012e-01,
                       2.857142874366239149e-01, 6.666666666666735130e-01);
    ln2_hi = 6.93147180369123816490e-01;
    ln2_lo = 1.90821492927058770002e-10;
  }
  const F R = t2 + t1;
  // s (hfsq + R) + (k ln2_lo + corr) - hfsq + f + k ln2_hi, in fdlibm's order.
  F y = s * (hfsq + R);
  y = y + (dk * ln2_lo + corr);
  y = y - hfsq;
  y = y + f;
  return y + dk * ln2_hi;
}

// A positive normal x as 2^k m, m in [sqrt(1/2), sqrt(2)): f = m - 1 (exact)
// and k as a float. Offsetting the bits by 1 - sqrt(1/2) moves the exponent
// boundary to sqrt(2).
template <class F> struct Split {
  F f, dk;
};
template <class F> inline Split<F> split(F x) {
  UInt<F> one, sqrt_half, mantissa_mask;
  int shift, bias;
  if constexpr (kF32<F>) {
    one = 0x3f800000;
    sqrt_half = 0x3f3504f3;
    mantissa_mask = 0x007fffff;
    shift = 23;
    bias = 0x7f;
  } else {
    one = 0x3ff0000000000000;
    sqrt_half = 0x3fe6a09e00000000;
    mantissa_mask = 0x000fffffffffffff;
    shift = 52;
    bias = 0x3ff;
  }
  const UInt<F> u = std::bit_cast<UInt<F>>(x) + (one - sqrt_half);
  const auto k = static_cast<int32_t>(static_cast<Int<F>>(u >> shift) - bias);
  const F m = std::bit_cast<F>((u & mantissa_mask) + sqrt_half);
  return {m - F(1), static_cast<F>(k)};
}

template <class F> inline F log(F x) {
  // Subnormals: scaled into the normal range first.
  constexpr F tiny = kF32<F> ? 0x1p-126 : 0x1p-1022, up = kF32<F> ? 0x1p25 : 0x1p54;
  constexpr F down = kF32<F> ? -25.0 : -54.0;
  const bool sub = x < tiny;
  const Split<F> s = split(sub ? x * up : x);
  F y = log_core(s.f, s.dk + (sub ? down : F(0)), F(0));
  y = x == F(INFINITY) ? x : y;
  y = x == F(0) ? F(-INFINITY) : y;
  y = x < F(0) ? F(NAN) : y;
  return std::isnan(x) ? x : y;
}

template <class F> inline F log1p(F x) {
  // log(u) for u = 1 + x rounded, plus c/u with c = (1 + x) - u its exact
  // rounding error; u is never subnormal.
  const F u = F(1) + x;
  const F err = u >= F(2) ? F(1) - (u - x) : x - (u - F(1));
  const Split<F> s = split(u);
  F y = log_core(s.f, s.dk, err / u);
  y = x == F(INFINITY) ? x : y;
  y = x == F(-1) ? F(-INFINITY) : y;
  y = x < F(-1) ? F(NAN) : y;
  return std::isnan(x) ? x : y;
}

template <class F> inline F tanh(F x) {
  const F ax = std::abs(x);
  // |x| >= 0.625: 1 - 2 / (e^{2|x|} + 1), sign restored; e = inf gives 1.
  const F e = exp(ax + ax);
  const F large = std::copysign(F(1) - F(2) / (e + F(1)), x);
  // |x| < 0.625: x + x z P(z) (f32) or x + x z P(z)/Q(z) (f64), z = x^2 (Cephes).
  const F z = x * x;
  F small;
  if constexpr (kF32<F>) {
    const F p = horner<F>(z, -5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2,
                          1.33314422036e-1, -3.33332819422e-1);
    small = fmad(p * z, x, x);
  } else {
    const F p = horner<F>(z, -9.64399179425052238628e-1, -9.92877231001918586564e1,
                          -1.61468768441708447952e3);
    const F q = horner<F>(z, 1.0, 1.12811678491632931402e2, 2.23548839060100448583e3,
                          4.84406305325125486048e3);
    small = fmad(x * z, p / q, x);
  }
  return ax < F(0.625) ? small : large; // NaN takes `large` and stays NaN
}

// x^N for an integer N >= 1 by square and multiply, lowest bit first.
template <int N, class F> inline F powi_rest(F result, F base) {
  const F r = N % 2 == 1 ? result * base : result;
  if constexpr (N > 1)
    return powi_rest<N / 2>(r, base * base);
  else
    return r;
}
template <int N, class F> inline F powi(F x) {
  if constexpr (N % 2 == 0)
    return powi<N / 2>(x * x);
  else if constexpr (N > 1)
    return powi_rest<N / 2>(x, x * x);
  else
    return x;
}
// x^(1/2) as pow: + 0 turns sqrt(-0) = -0 into +0, and pow(-inf, 1/2) = inf.
template <class F> inline F pow_half(F x) {
  return x == F(-INFINITY) ? F(INFINITY) : std::sqrt(x) + F(0);
}
// x^p for any other p: exp(p log x), the error growing with |p log x|; odd
// integer p keeps the sign of x.
template <class F> inline F pow(F x, F p) {
  const bool integer = p == std::trunc(p);
  const F y = exp(p * log(integer ? std::abs(x) : x));
  return integer && std::fmod(std::abs(p), F(2)) == F(1) ? std::copysign(y, x) : y;
}

} // namespace vm

// The loop IR's ops on one lane (compiler/loops/loop_scalar_math.h): relu and
// step are 0 at NaN, min and max propagate NaN, sigmoid and softplus take
// their overflow-free forms.
inline T square(T x) { return x * x; }
inline T sigmoid(T x) {
  const T e = vm::exp(-std::abs(x));
  return (x >= 0 ? T(1) : e) / (T(1) + e);
}
// max(x, 0) + log1p(e), e = exp(-|x|), with log1p's kernel fed f = e below
// sqrt(2) - 1 and above it f = (e - 1)/2 plus the exact rounding error of
// e - 1 (1 + e is never rounded).
inline T softplus(T x) {
  const T pos = x > 0 ? x : T(0);
  const T e = vm::exp(-std::abs(x));
  const bool lo = e < T(1.4142135623730951 - 1.0);
  const T t = T(-1) + e;
  const T err = e - (t + T(1));
  const T f = lo ? e : t * T(0.5);
  const T corr = lo ? T(0) : err / (T(2) + t);
  const T l1p = vm::log_core(f, lo ? T(0) : T(1), corr);
  return pos + (std::isnan(x) ? x : l1p);
}
// The sum of a tile's lane values as the LLVM backend's vector reduction
// adds them: the upper half onto the lower, until one lane is left.
template <int64_t W> inline T lane_sum(T* v) {
  if constexpr (W == 1) {
    return v[0];
  } else {
    PLASTIC_SIMD
    for (int64_t l = 0; l < W / 2; ++l)
      v[l] += v[l + W / 2];
    return lane_sum<W / 2>(v);
  }
}
inline T relu(T x) { return x > 0 ? x : T(0); }
inline T elu(T x, T alpha) { return x > 0 ? x : alpha * vm::expm1(x); }
inline T step(T x) { return x > 0 ? T(1) : T(0); }
inline T sign(T x) { return x > 0 ? T(1) : (x < 0 ? T(-1) : T(0)); }
inline T min_nan(T a, T b) { return std::isnan(a) || std::isnan(b) ? a + b : (a < b ? a : b); }
inline T max_nan(T a, T b) { return std::isnan(a) || std::isnan(b) ? a + b : (a > b ? a : b); }

} // namespace
)prelude";

} // namespace

std::string_view prelude() {
  return kPrelude;
}

} // namespace plastic::backend::cpp::detail
