// Helpers of the kernel-emitter tests (support.h).
#include "tests/compiler/loopgen/loopgen_support.h"

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "compiler/loopgen/emit_function.h"

namespace plastic::loopgen::test {

void HostBuffer::Free::operator()(void* p) const {
  std::free(p);
}

HostBuffer::HostBuffer(ElemType type, int64_t elements, double fill) : type_(type), n_(elements) {
  size_t bytes = static_cast<size_t>(std::max<int64_t>(elements, 1) * loops::elem_size(type));
  bytes = (bytes + 63) / 64 * 64;
  mem_.reset(std::aligned_alloc(64, bytes));
  for (int64_t i = 0; i < elements; ++i)
    set(i, fill);
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

backend::Jit& test_jit() {
  static backend::Jit jit([] {
    backend::CompileOptions o;
    o.packed_entries = true;
    return o;
  }());
  return jit;
}

std::string unique_name(const std::string& base) {
  static int counter = 0;
  std::string s;
  for (char c : base)
    s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return fmt::format("k{}_{}", counter++, s);
}

void run(const loops::Function& fn, const loops::Args& args) {
  backend::JitModule m = test_jit().add(loops::Module{fn.name, {fn}});
  m.packed(fn.name)(args.data());
}

int64_t count_statements(const loops::Function& fn) {
  int64_t n = 0;
  std::function<void(const std::vector<loops::Stmt>&)> walk =
      [&](const std::vector<loops::Stmt>& body) {
        for (const loops::Stmt& s : body) {
          ++n;
          walk(s.body);
        }
      };
  walk(fn.body);
  return n;
}

double default_floor(ElemType t) {
  return t == ElemType::F64 ? 1e-5 : 1e-2;
}

namespace {

// The signature rule of emit_standalone (emit_function.h), restated.
bool is_scalar_input(const ir::Node* n) {
  return n->rank() == 0 && (n->op() == ir::Op::Time || n->op() == ir::Op::Arg) &&
         (n->name() == "t" || n->name() == "h");
}

} // namespace

Check check_standalone(const ir::Function& fn, ElemType type, uint64_t seed, const Ranges& ranges,
                       int lanes) {
  loops::Function kf = emit_standalone(fn, type, lanes, unique_name(fn.name()));
  const int L = kf.lanes;
  const size_t ni = fn.inputs().size(), no = fn.outputs().size();
  std::mt19937_64 rng(seed);
  auto draw = [&](const ir::Node* leaf) {
    auto [lo, hi] = ranges ? ranges(leaf) : std::pair<double, double>{-1.0, 1.0};
    std::uniform_real_distribution<double> u(lo, hi);
    double v = u(rng);
    return type == ElemType::F32 ? static_cast<double>(static_cast<float>(v)) : v;
  };

  // Per lane inputs; shared ones drawn once.
  std::vector<std::vector<Tensor<double>>> lane_in(static_cast<size_t>(L),
                                                   std::vector<Tensor<double>>(ni));
  for (size_t i = 0; i < ni; ++i) {
    const ir::Node* leaf = fn.inputs()[i];
    bool shared = is_scalar_input(leaf) || leaf->op() == ir::Op::Param;
    for (int l = 0; l < L; ++l) {
      if (shared && l > 0) {
        lane_in[static_cast<size_t>(l)][i] = lane_in[0][i];
        continue;
      }
      Tensor<double> t(leaf->shape());
      for (double& v : t.data)
        v = draw(leaf);
      lane_in[static_cast<size_t>(l)][i] = std::move(t);
    }
  }

  // Buffers in signature order: ctx, scalars, input buffers, outputs, scratch.
  loops::Args args;
  args.ptr(nullptr);
  for (size_t i = 0; i < ni; ++i)
    if (is_scalar_input(fn.inputs()[i])) args.scalar(lane_in[0][i].data[0]);
  std::vector<HostBuffer> keep;
  size_t p = 1; // the first buffer parameter: after ctx and the scalars
  for (size_t i = 0; i < ni; ++i)
    p += is_scalar_input(fn.inputs()[i]) ? 1 : 0;
  for (size_t i = 0; i < ni; ++i) {
    const ir::Node* leaf = fn.inputs()[i];
    if (is_scalar_input(leaf)) continue;
    const loops::BufferDecl& d = kf.buffers.at(kf.params.at(p++).buffer);
    HostBuffer h(type, kf.elements(d));
    for (int64_t e = 0; e < leaf->numel(); ++e)
      for (int l = 0; l < (d.lanes == loops::Lanes::Varying ? L : 1); ++l)
        h.set(d.lanes == loops::Lanes::Varying ? e * L + l : e,
              lane_in[static_cast<size_t>(l)][i].data[static_cast<size_t>(e)]);
    args.ptr(h.data());
    keep.push_back(std::move(h));
  }
  std::vector<size_t> out_param;
  std::vector<HostBuffer> out_buf;
  for (size_t j = 0; j < no; ++j) {
    const loops::BufferDecl& d = kf.buffers.at(kf.params.at(p).buffer);
    out_param.push_back(p++);
    out_buf.emplace_back(type, kf.elements(d), 12345.0); // every element must be written
    args.ptr(out_buf.back().data());
  }
  // Scratch starts as NaN: a read before a write shows up as a NaN mismatch.
  HostBuffer scratch(type, kf.scratch_bytes / loops::elem_size(type) + 1, std::nan(""));
  args.ptr(scratch.data());

  Check c;
  c.statements = count_statements(kf);
  auto t0 = std::chrono::steady_clock::now();
  backend::JitModule m = test_jit().add(loops::Module{kf.name, {kf}});
  c.compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  m.packed(kf.name)(args.data());

  std::vector<std::vector<Tensor<double>>> ref;
  for (int l = 0; l < L; ++l)
    ref.push_back(interp::evaluate<double>(fn, lane_in[static_cast<size_t>(l)]));

  double floor = default_floor(type);
  for (size_t j = 0; j < no; ++j) {
    const loops::BufferDecl& d = kf.buffers.at(kf.params.at(out_param[j]).buffer);
    bool varying = d.lanes == loops::Lanes::Varying;
    double scale = 0;
    for (int l = 0; l < L; ++l)
      for (double v : ref[static_cast<size_t>(l)][j].data)
        if (std::isfinite(v)) scale = std::max(scale, std::abs(v));
    for (int l = 0; l < L; ++l) {
      const Tensor<double>& r = ref[static_cast<size_t>(l)][j];
      for (int64_t e = 0; e < r.numel(); ++e) {
        double want = r.data[static_cast<size_t>(e)];
        double got = out_buf[j].get(varying ? e * L + l : e);
        std::string where =
            fmt::format("{}[lane {}][{}]: jit {} ref {}", fn.outputs()[j].name, l, e, got, want);
        if (std::isnan(want) || std::isnan(got)) {
          if (std::isnan(want) != std::isnan(got)) {
            c.nan_mismatch = true;
            c.where = where;
          }
          continue;
        }
        if (std::isinf(want) || std::isinf(got)) {
          if (want != got) {
            c.max_rel = INFINITY;
            c.where = where;
          }
          continue;
        }
        double err = std::abs(got - want);
        double rel = err / std::max(std::abs(want), floor * scale);
        if (scale == 0) rel = err;
        c.max_pure = std::max(c.max_pure, want == 0 ? err : err / std::abs(want));
        if (rel > c.max_rel) {
          c.max_rel = rel;
          c.where = where;
        }
      }
    }
  }
  return c;
}

} // namespace plastic::loopgen::test
