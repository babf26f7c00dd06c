// Accuracy of the vectorised transcendental functions (llvm/vector_math.h)
// against long double libm, through JIT-compiled kernels y[i] = f(x[i]).
//
// Per function and type about 10^6 points: uniform over the useful range,
// log-uniform magnitudes, dense near the branch points, plus special values
// (checked for exact agreement in class: NaN, +-inf, zero). Errors are
// measured in ulps of the result type and as relative error, the latter
// only where the exact result is a normal number (subnormal results have
// absolute, not relative, precision; their ulp error is still bounded).
//
// Asserted: f64 relative error <= 1e-15, f32 <= 2e-7 (and <= 4 ulp in both),
// for MathMode::Polynomial. The libm mode is measured for comparison.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>

#include "compiler/loops/loop_builder.h"
#include "tests/compiler/backend/jit_support.h"

using namespace plastic::loops;
using namespace plastic::backend;
using namespace plastic::backend::test;

namespace {

using Ref = std::function<long double(long double)>;

struct MathCase {
  UnaryOp op;
  const char* name;
  Ref ref;
  // Sampling ranges per type: {lo, hi} uniform, and a log-uniform magnitude range.
  double lo64, hi64, lo32, hi32;
  double mag_lo, mag_hi64, mag_hi32; // |x| in [mag_lo, mag_hi], both signs unless positive_only
  bool positive_only;
};

long double sigmoid_ref(long double x) {
  return 1.0L / (1.0L + expl(-x));
}
long double softplus_ref(long double x) {
  return (x > 0 ? x : 0.0L) + log1pl(expl(-fabsl(x)));
}

const MathCase kCases[] = {
    {UnaryOp::Exp, "exp", [](long double x) { return expl(x); }, -745, 709.7, -103.9, 88.7, 1e-12,
     700, 88, false},
    {UnaryOp::Expm1, "expm1", [](long double x) { return expm1l(x); }, -50, 709.7, -25, 88.7, 1e-12,
     700, 88, false},
    {UnaryOp::Log, "log", [](long double x) { return logl(x); }, 0.5, 2.0, 0.5, 2.0, 1e-300, 1e300,
     1e38, true},
    {UnaryOp::Log1p, "log1p", [](long double x) { return log1pl(x); }, -0.999, 4, -0.999, 4, 1e-12,
     1e300, 1e38, false},
    {UnaryOp::Tanh, "tanh", [](long double x) { return tanhl(x); }, -25, 25, -12, 12, 1e-12, 30, 15,
     false},
    {UnaryOp::Sigmoid, "sigmoid", sigmoid_ref, -700, 40, -87, 20, 1e-12, 700, 87, false},
    {UnaryOp::Softplus, "softplus", softplus_ref, -700, 700, -87, 87, 1e-12, 700, 87, false},
};

// The inputs of one sweep (rounded to the type).
std::vector<double> sample(const MathCase& c, ElemType t, size_t n) {
  std::mt19937_64 rng(42);
  const bool f32 = t == ElemType::F32;
  const double lo = f32 ? c.lo32 : c.lo64, hi = f32 ? c.hi32 : c.hi64;
  const double mag_hi = f32 ? c.mag_hi32 : c.mag_hi64;
  std::uniform_real_distribution<double> uni(lo, hi), loguni(std::log(c.mag_lo), std::log(mag_hi)),
      coin(0, 1);
  std::vector<double> xs;
  auto push = [&](double x) { xs.push_back(f32 ? static_cast<double>(static_cast<float>(x)) : x); };
  for (size_t i = 0; i < n / 2; ++i)
    push(uni(rng));
  for (size_t i = 0; i < n / 4; ++i) {
    const double m = std::exp(loguni(rng));
    push(c.positive_only || coin(rng) < 0.5 ? m : -m);
  }
  // Dense around the points where the algorithms switch branch or reduce.
  for (double centre : {0.0, 0.625, -0.625, 0.3465735902799726, -0.3465735902799726, 1.0,
                        0.7071067811865476, 1.4142135623730951, 20.0, -20.0, 40.0, -40.0}) {
    std::uniform_real_distribution<double> near(centre - 1e-3, centre + 1e-3);
    for (size_t i = 0; i < n / 48; ++i)
      push(near(rng));
  }
  // Subnormal and extreme inputs.
  const double tiny = f32 ? FLT_TRUE_MIN : DBL_TRUE_MIN, big = f32 ? FLT_MAX : DBL_MAX;
  for (double x :
       {tiny, 2 * tiny, 1e3 * tiny, (f32 ? FLT_MIN : DBL_MIN), big, -big, -tiny, 1e-30, -1e-30})
    push(x);
  return xs;
}

double ulp_of(long double r, ElemType t) {
  const int mant = t == ElemType::F32 ? 23 : 52;
  const int emin = t == ElemType::F32 ? -126 : -1022;
  if (r == 0) return std::ldexp(1.0, emin - mant);
  return std::ldexp(1.0,
                    std::max(static_cast<int>(std::ilogb(static_cast<double>(r))), emin) - mant);
}

struct Stats {
  double max_ulp = 0, max_rel = 0, x_ulp = 0, x_rel = 0;
  size_t points = 0;
  int class_errors = 0;
  std::string first_class_error;
};

// Runs f over xs through a JIT kernel of n elements per call.
std::vector<double> run_kernel(const MathCase& c, ElemType t, MathMode mode,
                               const std::vector<double>& xs) {
  const int64_t n = 1024;
  Builder b(std::string("math_") + c.name, t);
  Buffer x = b.varying_param("x", n, {.readonly = true});
  Buffer y = b.varying_param("y", n);
  b.loop("i", 0, n, [&](Index i) { b.store(y, i, b.unary(c.op, b.load(x, i))); });
  const Function fn = b.finish();
  JitModule jm = test_jit(mode).add(Module{fn.name, {fn}});
  const int64_t per_call = n * fn.lanes;
  HostBuffer in(t, per_call), out(t, per_call);
  std::vector<double> ys(xs.size());
  Args args;
  args.ptr(in.data()).ptr(out.data());
  for (size_t base = 0; base < xs.size(); base += per_call) {
    for (int64_t i = 0; i < per_call; ++i)
      in.set(i, base + i < xs.size() ? xs[base + i] : 0.0);
    jm.packed(fn.name)(args.data());
    for (int64_t i = 0; i < per_call && base + i < xs.size(); ++i)
      ys[base + i] = out.get(i);
  }
  return ys;
}

Stats measure(const MathCase& c, ElemType t, MathMode mode, const std::vector<double>& xs,
              const std::vector<long double>& refs) {
  const std::vector<double> ys = run_kernel(c, t, mode, xs);
  const double max_t = t == ElemType::F32 ? FLT_MAX : DBL_MAX;
  const double min_normal = t == ElemType::F32 ? FLT_MIN : DBL_MIN;
  Stats s;
  s.points = xs.size();
  for (size_t i = 0; i < xs.size(); ++i) {
    const long double r = refs[i];
    const double y = ys[i];
    if (std::isnan(static_cast<double>(r)) || std::isinf(static_cast<double>(r)) ||
        fabsl(r) > max_t) {
      // Expected NaN or overflow: the class must match (inf for overflow).
      const bool ok = std::isnan(static_cast<double>(r))
                          ? std::isnan(y)
                          : (std::isinf(y) && std::signbit(y) == (r < 0));
      if (!ok && fabsl(r) > max_t * 1.0000001L) {
        if (!s.class_errors++)
          s.first_class_error =
              fmt::format("x={} -> {} (ref {})", xs[i], y, static_cast<double>(r));
      }
      continue;
    }
    if (std::isnan(y) || std::isinf(y)) {
      if (!s.class_errors++)
        s.first_class_error = fmt::format("x={} -> {} (ref {})", xs[i], y, static_cast<double>(r));
      continue;
    }
    const long double err = fabsl(static_cast<long double>(y) - r);
    const double ulps = static_cast<double>(err / ulp_of(r, t));
    if (ulps > s.max_ulp) s.max_ulp = ulps, s.x_ulp = xs[i];
    if (fabsl(r) >= min_normal) {
      const double rel = static_cast<double>(err / fabsl(r));
      if (rel > s.max_rel) s.max_rel = rel, s.x_rel = xs[i];
    }
  }
  return s;
}

// Special inputs: the class of the result (and the value where exact) must
// equal libm's in the same type.
int special_mismatches(const MathCase& c, ElemType t, std::string& report) {
  std::vector<double> xs = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, -1.0};
  std::vector<double> ys = run_kernel(c, t, MathMode::Polynomial, xs);
  int bad = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double r = static_cast<double>(c.ref(xs[i]));
    const double rt = t == ElemType::F32 ? static_cast<double>(static_cast<float>(r)) : r;
    const bool same_class = std::isnan(rt)   ? std::isnan(ys[i])
                            : std::isinf(rt) ? (ys[i] == rt)
                            : rt == 0        ? ys[i] == 0
                                             : std::fabs(ys[i] - rt) <= 4 * ulp_of(rt, t);
    if (!same_class) {
      ++bad;
      report += fmt::format(" {}({})={} want {};", c.name, xs[i], ys[i], rt);
    }
  }
  return bad;
}

void sweep(size_t n) {
  fmt::print("\nvector math accuracy vs long double libm ({} points per function and type)\n", n);
  fmt::print("  {:<9} {:<4} {:<5} {:>10} {:>11} {:>14} {:>11} {:>14}\n", "function", "type", "mode",
             "points", "max ulp", "at x", "max rel", "at x");
  for (const MathCase& c : kCases) {
    for (ElemType t : {ElemType::F64, ElemType::F32}) {
      const std::vector<double> xs = sample(c, t, n);
      std::vector<long double> refs(xs.size());
      for (size_t i = 0; i < xs.size(); ++i)
        refs[i] = c.ref(xs[i]);
      for (MathMode mode : {MathMode::Polynomial, MathMode::Libm}) {
        const Stats s = measure(c, t, mode, xs, refs);
        fmt::print("  {:<9} {:<4} {:<5} {:>10} {:>11.3f} {:>14.7g} {:>11.3e} {:>14.7g}\n", c.name,
                   elem_type_name(t), mode == MathMode::Polynomial ? "poly" : "libm", s.points,
                   s.max_ulp, s.x_ulp, s.max_rel, s.x_rel);
        if (mode != MathMode::Polynomial) continue;
        INFO(c.name << " " << elem_type_name(t) << ": max ulp " << s.max_ulp << " at " << s.x_ulp
                    << ", max rel " << s.max_rel << " at " << s.x_rel << "; "
                    << s.first_class_error);
        CHECK(s.class_errors == 0);
        CHECK(s.max_rel <= (t == ElemType::F64 ? 1e-15 : 2e-7));
        CHECK(s.max_ulp <= 4.0);
      }
      std::string report;
      const int bad = special_mismatches(c, t, report);
      INFO("specials:" << report);
      CHECK(bad == 0);
      if (!report.empty()) fmt::print("  specials:{}\n", report);
    }
  }
}

// Every f32 input with exponent in [elo, ehi), both signs, against a double
// reference (exact enough for f32 results); relative error over normal results.
void exhaustive_f32(const MathCase& c, int elo, int ehi) {
  const int64_t n = 4096;
  Builder b(std::string("exh_") + c.name, ElemType::F32);
  Buffer x = b.varying_param("x", n, {.readonly = true});
  Buffer y = b.varying_param("y", n);
  b.loop("i", 0, n, [&](Index i) { b.store(y, i, b.unary(c.op, b.load(x, i))); });
  const Function fn = b.finish();
  JitModule jm = test_jit().add(Module{fn.name, {fn}});
  auto* kernel = jm.get<void(const void*, void*)>(fn.name);
  std::vector<float> in(static_cast<size_t>(n * fn.lanes)), out(in.size());
  double max_rel = 0, x_rel = 0;
  int64_t points = 0;
  for (uint32_t sign : {0u, 0x80000000u}) {
    const uint32_t lo = static_cast<uint32_t>(127 + elo) << 23,
                   hi = static_cast<uint32_t>(127 + ehi) << 23;
    for (uint32_t base = lo; base < hi; base += static_cast<uint32_t>(in.size())) {
      for (size_t i = 0; i < in.size(); ++i) {
        const uint32_t bits = std::min<uint32_t>(base + static_cast<uint32_t>(i), hi - 1) | sign;
        std::memcpy(&in[i], &bits, 4);
      }
      kernel(in.data(), out.data());
      for (size_t i = 0; i < in.size(); ++i) {
        const double r = static_cast<double>(c.ref(in[i]));
        if (!(std::fabs(r) >= FLT_MIN) || std::fabs(r) > FLT_MAX) continue;
        const double rel = std::fabs(out[i] - r) / std::fabs(r);
        if (rel > max_rel) max_rel = rel, x_rel = in[i];
        ++points;
      }
    }
  }
  fmt::print("  {:<9} f32, all {} inputs with |x| in [2^{}, 2^{}): max rel {:.3e} at {:.9g}\n",
             c.name, points, elo, ehi, max_rel, x_rel);
  INFO(c.name << " at " << x_rel);
  CHECK(max_rel <= 2e-7);
}

} // namespace

TEST_CASE("vectorised math accuracy, 10^6 points per function", "[backend][math]") {
  sweep(1000000);
}

TEST_CASE("vectorised math accuracy, 10^7 points per function", "[backend][math][slow]") {
  sweep(10000000);
}

TEST_CASE("vectorised math accuracy, f32 exhaustive over the busy binades",
          "[backend][math][slow]") {
  fmt::print("\nf32 exhaustive sweeps (both signs; double reference)\n");
  for (const MathCase& c : kCases)
    exhaustive_f32(c, -8, 7);
}
