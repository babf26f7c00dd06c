// Throughput measurements of JIT-compiled kernels (perf.h).
#include "tests/codegen/perf.h"

#include <algorithm>
#include <ctime>
#include <vector>

#include "compiler/codegen/llvm/jit.h"
#include "tests/codegen/programs.h"
#include "tests/codegen/support.h"

namespace plastic::codegen::test {

namespace {

// CPU time of this thread: the test machine is shared, and wall-clock time
// would count the time other processes hold the core.
double thread_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Best of 3 runs of at least 0.05 s of CPU time each: seconds per call.
template <class Body> double seconds_per_call(Body&& body) {
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    int64_t calls = 0;
    const double t0 = thread_seconds();
    double elapsed = 0;
    do {
      for (int i = 0; i < 16; ++i) body();
      calls += 16;
      elapsed = thread_seconds() - t0;
    } while (elapsed < 0.05);
    best = std::min(best, elapsed / static_cast<double>(calls));
  }
  return best;
}

}  // namespace

double matvec_gflops(ElemType type, int lanes, int64_t heads, int64_t d, int64_t tiles) {
  const Function fn = matvec(type, lanes, heads, d);
  Jit jit;
  JitModule m = jit.add(Module{"perf_matvec", {fn}});
  auto* f = m.get<void(const void*, const void*, const void*, void*, void*)>("matvec");
  const int64_t L = fn.lanes;
  HostBuffer W(type, tiles * heads * d * d * L), k(type, tiles * heads * d * L), y(type, tiles * heads * d * L);
  for (int64_t i = 0; i < W.size(); ++i) W.set(i, 1e-3 * static_cast<double>(i % 97));
  for (int64_t i = 0; i < k.size(); ++i) k.set(i, 1e-2 * static_cast<double>(i % 13));
  const int es = elem_size(type);
  char* Wp = static_cast<char*>(W.data());
  char* kp = static_cast<char*>(k.data());
  char* yp = static_cast<char*>(y.data());
  const double s = seconds_per_call([&] {
    for (int64_t t = 0; t < tiles; ++t)
      f(nullptr, Wp + t * heads * d * d * L * es, kp + t * heads * d * L * es, yp + t * heads * d * L * es, nullptr);
  });
  return 2.0 * static_cast<double>(heads * d * d * L * tiles) / s * 1e-9;
}

double math_ns_per_element(UnaryOp op, ElemType type, MathMode mode) {
  const int64_t n = 512;
  Builder b("perf_math", type);
  Buffer x = b.varying_param("x", n, {.readonly = true});
  Buffer y = b.varying_param("y", n);
  b.loop("i", 0, n, [&](Index i) { b.store(y, i, b.unary(op, b.load(x, i))); });
  const Function fn = b.finish();
  CompileOptions o;
  o.math = mode;
  Jit jit(o);
  JitModule m = jit.add(Module{"perf_math", {fn}});
  auto* f = m.get<void(const void*, void*)>("perf_math");
  HostBuffer in(type, n * fn.lanes), out(type, n * fn.lanes);
  for (int64_t i = 0; i < in.size(); ++i) in.set(i, -3.0 + 6.0 * static_cast<double>(i) / static_cast<double>(in.size()) + 0.5);
  const double s = seconds_per_call([&] { f(in.data(), out.data()); });
  return s / static_cast<double>(in.size()) * 1e9;
}

double delta_field_samples_per_s(ElemType type, int lanes, int64_t d_in, int64_t heads, int64_t d) {
  const Function fn = delta_field(type, lanes, d_in, heads, d);
  Jit jit;
  JitModule m = jit.add(Module{"perf_field", {fn}});
  Frame f = make_frame(fn, {{"z", {-0.5, 0.5}}, {"theta", {-0.3, 0.3}}}, 5);
  auto* k = m.get<void(const void*, double, const void*, const void*, const void*, void*, void*)>("delta_field");
  Args a = f.args();
  const double s = seconds_per_call(
      [&] { k(nullptr, 0.0, a.pointer_at(2), a.pointer_at(3), a.pointer_at(4), a.pointer_at(5), a.pointer_at(6)); });
  return static_cast<double>(fn.lanes) / s;
}

}  // namespace plastic::codegen::test
