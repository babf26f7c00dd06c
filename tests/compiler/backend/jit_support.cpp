// Shared helpers of the code generator tests (support.h).
#include "tests/compiler/backend/jit_support.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include <unistd.h>

#include <fmt/format.h>

#include "compiler/loops/loop_interpreter.h"

namespace plastic::backend::test {

using namespace ::plastic::loops;

void HostBuffer::Free::operator()(void* p) const {
  std::free(p);
}

HostBuffer::HostBuffer(ElemType type, int64_t elements) : type_(type), n_(elements) {
  const size_t bytes = static_cast<size_t>(elements * elem_size(type));
  const size_t rounded = (bytes + 63) / 64 * 64;
  mem_.reset(std::aligned_alloc(64, rounded == 0 ? 64 : rounded));
  std::memset(mem_.get(), 0, rounded == 0 ? 64 : rounded);
}

double HostBuffer::get(int64_t i) const {
  return type_ == ElemType::F32 ? static_cast<const float*>(data())[i]
                                : static_cast<const double*>(data())[i];
}

void HostBuffer::set(int64_t i, double v) {
  if (type_ == ElemType::F32)
    static_cast<float*>(data())[i] = static_cast<float>(v);
  else
    static_cast<double*>(data())[i] = v;
}

Args Frame::args() const {
  Args a;
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (kinds[i] == ParamKind::Scalar)
      a.scalar(scalars[i]);
    else
      a.ptr(buffers[i].size() > 0 ? buffers[i].data() : nullptr); // opaque: NULL
  }
  return a;
}

Frame Frame::clone() const {
  Frame f;
  f.scalars = scalars;
  f.kinds = kinds;
  for (const HostBuffer& b : buffers) {
    HostBuffer c(b.type(), b.size());
    if (b.size() > 0)
      std::memcpy(c.data(), b.data(), static_cast<size_t>(b.size() * elem_size(b.type())));
    f.buffers.push_back(std::move(c));
  }
  return f;
}

Frame make_frame(const Function& fn, const std::vector<std::pair<std::string, ArgSpec>>& specs,
                 uint64_t seed) {
  std::map<std::string, ArgSpec> by_name(specs.begin(), specs.end());
  std::mt19937_64 rng(seed);
  Frame f;
  for (const Param& p : fn.params) {
    f.kinds.push_back(p.kind);
    const ArgSpec spec = by_name.count(p.name) ? by_name[p.name] : ArgSpec{};
    switch (p.kind) {
    case ParamKind::Buffer: {
      HostBuffer b(fn.type, fn.elements(fn.buffers[p.buffer]));
      std::uniform_real_distribution<double> u(spec.lo, spec.hi);
      for (int64_t i = 0; i < b.size(); ++i)
        b.set(i, u(rng));
      f.buffers.push_back(std::move(b));
      f.scalars.push_back(0);
      break;
    }
    case ParamKind::Scratch: {
      HostBuffer b(ElemType::F64, (fn.scratch_bytes + 7) / 8 + 8);
      f.buffers.push_back(std::move(b));
      f.scalars.push_back(0);
      break;
    }
    case ParamKind::Scalar:
      f.buffers.emplace_back();
      f.scalars.push_back(spec.value);
      break;
    case ParamKind::Opaque:
      f.buffers.emplace_back();
      f.scalars.push_back(0);
      break;
    }
  }
  return f;
}

double default_floor(ElemType t) {
  return t == ElemType::F32 ? 1e-2 : 1e-3;
}

Comparison compare(const Function& fn, const Frame& jit, const Frame& ref, double floor) {
  if (floor == 0) floor = default_floor(fn.type);
  Comparison c;
  for (size_t i = 0; i < fn.params.size(); ++i) {
    const Param& p = fn.params[i];
    if (p.kind != ParamKind::Buffer || fn.buffers[p.buffer].readonly) continue;
    const HostBuffer& a = jit.buffers[i];
    const HostBuffer& r = ref.buffers[i];
    double scale = 0;
    for (int64_t e = 0; e < r.size(); ++e)
      scale = std::max(scale, std::fabs(r.get(e)));
    for (int64_t e = 0; e < r.size(); ++e) {
      const double x = a.get(e), y = r.get(e);
      if (std::isnan(x) || std::isnan(y)) {
        if (std::isnan(x) != std::isnan(y)) c.nan_mismatch = true;
        continue;
      }
      const double diff = std::fabs(x - y);
      const double rel = diff / std::max(std::fabs(y), floor * scale);
      if (y != 0) c.max_pure = std::max(c.max_pure, diff / std::fabs(y));
      if (rel > c.max_rel) {
        c.max_rel = rel;
        c.where = fmt::format("{}[{}] jit {} ref {}", p.name, e, x, y);
      }
    }
  }
  return c;
}

Jit& test_jit(MathMode mode) {
  auto make = [](MathMode m) {
    CompileOptions o;
    o.math = m;
    o.packed_entries = true;
    return std::make_unique<Jit>(o);
  };
  static std::unique_ptr<Jit> poly = make(MathMode::Polynomial);
  static std::unique_ptr<Jit> libm = make(MathMode::Libm);
  return mode == MathMode::Polynomial ? *poly : *libm;
}

Comparison run_both(const Function& fn, const std::vector<std::pair<std::string, ArgSpec>>& specs,
                    uint64_t seed, MathMode mode) {
  Module m{"test_" + fn.name, {fn}};
  JitModule jm = test_jit(mode).add(m);
  Frame ref = make_frame(fn, specs, seed);
  Frame out = ref.clone();
  jm.packed(fn.name)(out.args().data());
  interpret(fn, ref.args());
  return compare(fn, out, ref);
}

int64_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return -1;
  long size = 0, resident = 0;
  const int n = std::fscanf(f, "%ld %ld", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * sysconf(_SC_PAGESIZE) : -1;
}

} // namespace plastic::backend::test
