// Input and output bindings of emit_function on hand-declared kernels: Add,
// AddLaneSum (with its ×L rule for uniform values), scale, Discard (and the
// dead code it leaves out), nullable outputs (absent and present, and the
// work only they need kept inside if_present), scalar and zero inputs,
// several functions on one builder, outputs that alias inputs, and the
// InternalErrors of impossible bindings.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "compiler/ir/ops.h"
#include "compiler/loopgen/emit_function.h"
#include "compiler/loops/error.h"
#include "tests/compiler/loopgen/loopgen_support.h"

using namespace plastic;
using namespace plastic::loopgen;
using namespace plastic::loopgen::test;
using Catch::Matchers::Contains;
using loops::Builder;
using loops::Lanes;
using loops::StoreMode;

namespace {

constexpr int L = 4; // f64 tile

std::vector<double> random_values(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(n);
  for (double& x : v)
    x = u(rng);
  return v;
}

/// A varying host buffer (lane-interleaved) from per-lane values.
HostBuffer varying(const std::vector<std::vector<double>>& lanes) {
  HostBuffer h(ElemType::F64, static_cast<int64_t>(lanes[0].size()) * L);
  for (size_t l = 0; l < lanes.size(); ++l)
    for (size_t e = 0; e < lanes[l].size(); ++e)
      h.set(static_cast<int64_t>(e) * L + static_cast<int64_t>(l), lanes[l][e]);
  return h;
}

HostBuffer uniform(const std::vector<double>& v) {
  HostBuffer h(ElemType::F64, static_cast<int64_t>(v.size()));
  for (size_t e = 0; e < v.size(); ++e)
    h.set(static_cast<int64_t>(e), v[e]);
  return h;
}

bool contains_fma(const loops::Function& k, const std::vector<loops::Stmt>& body) {
  std::function<bool(uint32_t)> expr_has = [&](uint32_t id) {
    const loops::ExprNode& e = k.exprs[id];
    if (e.kind == loops::ExprKind::Fma) return true;
    for (uint32_t a : e.args)
      if (a != loops::kNone && expr_has(a)) return true;
    return false;
  };
  for (const loops::Stmt& s : body) {
    if (s.value != loops::kNone && expr_has(s.value)) return true;
    if (contains_fma(k, s.body)) return true;
  }
  return false;
}

void check_close(double got, double want) {
  INFO("got " << got << " want " << want);
  CHECK(std::abs(got - want) <= 1e-12 * std::max(1.0, std::abs(want)));
}

} // namespace

TEST_CASE("bindings: Add, AddLaneSum and scale", "[kernels][bindings]") {
  ir::Context ctx;
  const ir::Node* x = ctx.input("x", {3});
  const ir::Node* w = ctx.param("w", {3});
  ir::Function f("f", {x, w},
                 {{"y", mul(tanh(x), w)}, {"u", sigmoid(w)}, {"s", reduce_sum(mul(x, w), {0})}});
  Builder b(unique_name("bind_add"), loops::ElemType::F64, L);
  b.opaque_param("ctx");
  loops::Buffer X = b.varying_param("x", 3, {.readonly = true});
  loops::Buffer W = b.uniform_param("w", 3, {.readonly = true});
  loops::Buffer Y = b.varying_param("y", 3);
  loops::Buffer G = b.uniform_param("g", 4);
  b.scratch_param();
  std::vector<InputBinding> ins{InputBinding::in(X), InputBinding::in(W)};
  std::vector<OutputBinding> outs{OutputBinding::to(Y, 0, StoreMode::Add, 2.0),
                                  OutputBinding::to(G, 0, StoreMode::AddLaneSum, 0.5),
                                  OutputBinding::to(G, 3, StoreMode::AddLaneSum, -1.0)};
  emit_function(b, f, ins, outs);
  loops::Function k = b.finish();

  std::vector<std::vector<double>> xl;
  for (int l = 0; l < L; ++l)
    xl.push_back(random_values(3, 10 + static_cast<uint64_t>(l)));
  std::vector<double> wv = random_values(3, 99);
  std::vector<std::vector<double>> y0;
  for (int l = 0; l < L; ++l)
    y0.push_back(random_values(3, 20 + static_cast<uint64_t>(l)));
  std::vector<double> g0 = random_values(4, 30);
  HostBuffer hx = varying(xl), hw = uniform(wv), hy = varying(y0), hg = uniform(g0);
  HostBuffer scratch(ElemType::F64, k.scratch_bytes / 8 + 1);
  loops::Args a;
  a.ptr(nullptr).ptr(hx.data()).ptr(hw.data()).ptr(hy.data()).ptr(hg.data()).ptr(scratch.data());
  run(k, a);

  double lane_sum = 0;
  for (int l = 0; l < L; ++l) {
    auto ref = interp::evaluate<double>(
        f, std::vector<Tensor<double>>{Tensor<double>({3}, xl[static_cast<size_t>(l)]),
                                       Tensor<double>({3}, wv)});
    for (int64_t e = 0; e < 3; ++e)
      check_close(hy.get(e * L + l), y0[static_cast<size_t>(l)][static_cast<size_t>(e)] +
                                         2.0 * ref[0].data[static_cast<size_t>(e)]);
    lane_sum += ref[2].data[0];
    if (l == 0)
      for (int64_t e = 0; e < 3; ++e) // uniform value summed over L lanes = L x value
        check_close(hg.get(e),
                    g0[static_cast<size_t>(e)] + 0.5 * L * ref[1].data[static_cast<size_t>(e)]);
  }
  check_close(hg.get(3), g0[3] - lane_sum);
}

TEST_CASE("bindings: Discard emits nothing the other outputs do not need", "[kernels][bindings]") {
  ir::Context ctx;
  const ir::Node* x = ctx.input("x", {3});
  const ir::Node* M = ctx.param("M", {5, 3});
  ir::Function f("f", {x, M}, {{"a", tanh(x)}, {"b", sigmoid(matvec(M, x))}});
  auto build = [&](bool discard) {
    Builder b(unique_name("bind_discard"), loops::ElemType::F64, L);
    b.opaque_param("ctx");
    loops::Buffer X = b.varying_param("x", 3, {.readonly = true});
    loops::Buffer Mb = b.uniform_param("M", 15, {.readonly = true});
    loops::Buffer A = b.varying_param("a", 3);
    loops::Buffer B = b.varying_param("b", 5);
    b.scratch_param();
    std::vector<InputBinding> ins{InputBinding::in(X), InputBinding::in(Mb)};
    std::vector<OutputBinding> outs{OutputBinding::to(A),
                                    discard ? OutputBinding::discard() : OutputBinding::to(B)};
    emit_function(b, f, ins, outs);
    return b.finish();
  };
  loops::Function live = build(false), dead = build(true);
  CHECK(contains_fma(live, live.body));
  CHECK_FALSE(contains_fma(dead, dead.body));
  CHECK(count_statements(dead) < count_statements(live));

  // The discarded buffer is never written; the kept output is right.
  std::vector<std::vector<double>> xl;
  for (int l = 0; l < L; ++l)
    xl.push_back(random_values(3, 40 + static_cast<uint64_t>(l)));
  HostBuffer hx = varying(xl), hm = uniform(random_values(15, 41));
  HostBuffer ha(ElemType::F64, 3 * L, 7.0), hb(ElemType::F64, 5 * L, 7.0);
  HostBuffer scratch(ElemType::F64, dead.scratch_bytes / 8 + 1);
  loops::Args a;
  a.ptr(nullptr).ptr(hx.data()).ptr(hm.data()).ptr(ha.data()).ptr(hb.data()).ptr(scratch.data());
  run(dead, a);
  for (int64_t i = 0; i < 5 * L; ++i)
    CHECK(hb.get(i) == 7.0);
  for (int l = 0; l < L; ++l)
    for (int64_t e = 0; e < 3; ++e)
      check_close(ha.get(e * L + l), std::tanh(xl[static_cast<size_t>(l)][static_cast<size_t>(e)]));
}

TEST_CASE("bindings: nullable outputs, absent and present", "[kernels][bindings]") {
  ir::Context ctx;
  const ir::Node* x = ctx.input("x", {3});
  const ir::Node* M = ctx.param("M", {5, 3});
  const ir::Node* shared = tanh(x);
  ir::Function f("f", {x, M}, {{"a", mul(shared, shared)}, {"g", matvec(M, shared)}});
  Builder b(unique_name("bind_nullable"), loops::ElemType::F64, L);
  b.opaque_param("ctx");
  loops::Buffer X = b.varying_param("x", 3, {.readonly = true});
  loops::Buffer Mb = b.uniform_param("M", 15, {.readonly = true});
  loops::Buffer A = b.varying_param("a", 3);
  loops::Buffer Gb = b.varying_param("g", 5, {.nullable = true});
  b.scratch_param();
  emit_function(b, f, std::vector{InputBinding::in(X), InputBinding::in(Mb)},
                std::vector{OutputBinding::to(A), OutputBinding::to(Gb)});
  loops::Function k = b.finish();

  // The contraction only g needs sits inside if_present(g).
  bool fma_outside = false, fma_inside = false;
  for (const loops::Stmt& s : k.body) {
    bool has = contains_fma(k, {s});
    if (s.kind == loops::StmtKind::IfPresent)
      fma_inside = fma_inside || has;
    else
      fma_outside = fma_outside || has;
  }
  CHECK(fma_inside);
  CHECK_FALSE(fma_outside);

  std::vector<std::vector<double>> xl;
  for (int l = 0; l < L; ++l)
    xl.push_back(random_values(3, 50 + static_cast<uint64_t>(l)));
  std::vector<double> mv = random_values(15, 51);
  for (bool present : {false, true}) {
    HostBuffer hx = varying(xl), hm = uniform(mv), ha(ElemType::F64, 3 * L),
               hg(ElemType::F64, 5 * L);
    HostBuffer scratch(ElemType::F64, k.scratch_bytes / 8 + 1);
    loops::Args a;
    a.ptr(nullptr)
        .ptr(hx.data())
        .ptr(hm.data())
        .ptr(ha.data())
        .ptr(present ? hg.data() : nullptr)
        .ptr(scratch.data());
    run(k, a);
    for (int l = 0; l < L; ++l) {
      auto ref = interp::evaluate<double>(
          f, std::vector<Tensor<double>>{Tensor<double>({3}, xl[static_cast<size_t>(l)]),
                                         Tensor<double>({5, 3}, mv)});
      for (int64_t e = 0; e < 3; ++e)
        check_close(ha.get(e * L + l), ref[0].data[static_cast<size_t>(e)]);
      if (present)
        for (int64_t e = 0; e < 5; ++e)
          check_close(hg.get(e * L + l), ref[1].data[static_cast<size_t>(e)]);
    }
  }
}

TEST_CASE("bindings: scalar and zero inputs, two functions on one builder", "[kernels][bindings]") {
  ir::Context ctx;
  const ir::Node* t = ctx.time("t");
  const ir::Node* z = ctx.state("z", {3});
  const ir::Node* v = ctx.arg("v", {3}); // bound to zero
  ir::Function f("f", {t, z, v}, {{"y", add(mul(z, broadcast(t, {3}, {})), exp(v))}});
  ir::Function g("g", {z}, {{"n", reduce_sum(mul(z, z), {0})}});
  Builder b(unique_name("bind_scalar"), loops::ElemType::F64, L);
  b.opaque_param("ctx");
  loops::Expr te = b.scalar_param("t");
  loops::Buffer Z = b.varying_param("z", 3, {.readonly = true});
  loops::Buffer Y = b.varying_param("y", 4);
  b.scratch_param();
  emit_function(b, f,
                std::vector{InputBinding::value(te), InputBinding::in(Z), InputBinding::zero()},
                std::vector{OutputBinding::to(Y)});
  emit_function(b, g, std::vector{InputBinding::in(Z)}, std::vector{OutputBinding::to(Y, 3)});
  loops::Function k = b.finish();

  std::vector<std::vector<double>> zl;
  for (int l = 0; l < L; ++l)
    zl.push_back(random_values(3, 60 + static_cast<uint64_t>(l)));
  HostBuffer hz = varying(zl), hy(ElemType::F64, 4 * L);
  HostBuffer scratch(ElemType::F64, k.scratch_bytes / 8 + 1);
  loops::Args a;
  a.ptr(nullptr).scalar(0.75).ptr(hz.data()).ptr(hy.data()).ptr(scratch.data());
  run(k, a);
  for (int l = 0; l < L; ++l) {
    double n = 0;
    for (int64_t e = 0; e < 3; ++e) {
      double ze = zl[static_cast<size_t>(l)][static_cast<size_t>(e)];
      check_close(hy.get(e * L + l), ze * 0.75 + 1.0);
      n += ze * ze;
    }
    check_close(hy.get(3 * L + l), n);
  }
}

namespace {

/// Runs k(ctx, z0, z1, scratch) in place (z1 = z0) on per-lane values and
/// compares every element of the state with the interpreter's f.
void check_in_place(const loops::Function& k, const ir::Function& f, int64_t n,
                    std::vector<std::vector<int64_t>> shapes, uint64_t seed) {
  std::vector<std::vector<double>> zl;
  for (int l = 0; l < L; ++l)
    zl.push_back(random_values(static_cast<size_t>(n), seed + static_cast<uint64_t>(l)));
  HostBuffer hz = varying(zl);
  HostBuffer scratch(ElemType::F64, k.scratch_bytes / 8 + 1);
  loops::Args a;
  a.ptr(nullptr).ptr(hz.data()).ptr(hz.data()).ptr(scratch.data());
  run(k, a);
  for (int l = 0; l < L; ++l) {
    std::vector<Tensor<double>> in;
    int64_t at = 0;
    for (const auto& s : shapes) {
      int64_t m = 1;
      for (int64_t d : s)
        m *= d;
      const auto& v = zl[static_cast<size_t>(l)];
      in.emplace_back(s, std::vector<double>(v.begin() + at, v.begin() + at + m));
      at += m;
    }
    auto ref = interp::evaluate<double>(f, in);
    int64_t e = 0;
    for (const auto& r : ref)
      for (double x : r.data)
        check_close(hz.get(e++ * L + l), x);
  }
}

} // namespace

TEST_CASE("bindings: outputs that alias inputs see the inputs as they were",
          "[kernels][bindings]") {
  // z1 = z0ᵀ + roll(z0) in place (the ABI's z1 = z0): every output element
  // reads input elements another output element overwrites.
  ir::Context ctx;
  const ir::Node* z = ctx.state("z", {3, 3});
  const ir::Node* rolled = ir::concat({slice(z, {1, 0}, {2, 3}), slice(z, {0, 0}, {1, 3})}, 0);
  ir::Function f("f", {z},
                 {{"z1", add(transpose(z, {1, 0}), rolled)}, {"s", reduce_sum(z, {0, 1})}});
  Builder b(unique_name("bind_alias"), loops::ElemType::F64, L);
  b.opaque_param("ctx");
  loops::Buffer Z0 = b.varying_param("z0", 10, {.readonly = true, .may_alias = true});
  loops::Buffer Z1 = b.varying_param("z1", 10, {.may_alias = true});
  b.scratch_param();
  emit_function(b, f, std::vector{InputBinding::in(Z0)},
                std::vector{OutputBinding::to(Z1), OutputBinding::to(Z1, 9)});
  check_in_place(b.finish(), f, 10, {{3, 3}}, 70);
}

TEST_CASE("bindings: an aliased output read element for element is stored from its own loop",
          "[kernels][bindings]") {
  // An Euler step z1 = z0 + h tanh(W z0) in place: the matvec reads all of
  // z0, so it runs before any store; the sum reads z0 only at the element it
  // writes, so it needs no scratch copy of the new state.
  ir::Context ctx;
  const ir::Node* z = ctx.state("z", {6});
  const ir::Node* w = ctx.param("w", {6, 6});
  const ir::Node* h = ctx.constant(0.25, {6});
  ir::Function f("f", {z, w}, {{"z1", add(z, mul(h, tanh(matmul(w, z))))}});
  Builder b(unique_name("bind_alias_step"), loops::ElemType::F64, L);
  b.opaque_param("ctx");
  loops::Buffer Z0 = b.varying_param("z0", 6, {.readonly = true, .may_alias = true});
  loops::Buffer W = b.uniform_param("w", 36, {.readonly = true});
  loops::Buffer Z1 = b.varying_param("z1", 6, {.may_alias = true});
  b.scratch_param();
  emit_function(b, f, std::vector{InputBinding::in(Z0), InputBinding::in(W)},
                std::vector{OutputBinding::to(Z1)});
  loops::Function k = b.finish();
  // Scratch holds W z0 (6 values per lane), not also the new state.
  CHECK(k.scratch_bytes < 2 * 6 * L * 8);

  std::vector<double> wv = random_values(36, 90);
  std::vector<std::vector<double>> zl;
  for (int l = 0; l < L; ++l)
    zl.push_back(random_values(6, 91 + static_cast<uint64_t>(l)));
  HostBuffer hz = varying(zl), hw = uniform(wv);
  HostBuffer scratch(ElemType::F64, k.scratch_bytes / 8 + 1);
  loops::Args a;
  a.ptr(nullptr).ptr(hz.data()).ptr(hw.data()).ptr(hz.data()).ptr(scratch.data());
  run(k, a);
  for (int l = 0; l < L; ++l) {
    auto ref = interp::evaluate<double>(
        f, std::vector<Tensor<double>>{Tensor<double>({6}, zl[static_cast<size_t>(l)]),
                                       Tensor<double>({6, 6}, wv)});
    for (int64_t e = 0; e < 6; ++e)
      check_close(hz.get(e * L + l), ref[0].data[static_cast<size_t>(e)]);
  }
}

TEST_CASE("bindings: an aliased output reading another output's elements goes through scratch",
          "[kernels][bindings]") {
  // a1 = a + b, b1 = b - a in place, a at offset 0 and b at 3: each sum is
  // elementwise, but a1 reads b's elements and b1 reads a's, which a1's store
  // has overwritten. Both must see z0 as it was.
  ir::Context ctx;
  const ir::Node* za = ctx.state("a", {3});
  const ir::Node* zb = ctx.state("b", {3});
  ir::Function f("f", {za, zb}, {{"a1", add(za, zb)}, {"b1", sub(zb, za)}});
  Builder b(unique_name("bind_alias_cross"), loops::ElemType::F64, L);
  b.opaque_param("ctx");
  loops::Buffer Z0 = b.varying_param("z0", 6, {.readonly = true, .may_alias = true});
  loops::Buffer Z1 = b.varying_param("z1", 6, {.may_alias = true});
  b.scratch_param();
  emit_function(b, f, std::vector{InputBinding::in(Z0, 0), InputBinding::in(Z0, 3)},
                std::vector{OutputBinding::to(Z1, 0), OutputBinding::to(Z1, 3)});
  check_in_place(b.finish(), f, 6, {{3}, {3}}, 95);
}

TEST_CASE("bindings: impossible bindings are internal errors naming the culprit",
          "[kernels][bindings]") {
  ir::Context ctx;
  const ir::Node* x = ctx.input("x", {3});
  const ir::Node* w = ctx.param("w", {3});
  ir::Function f("f", {x, w}, {{"y", mul(x, w)}});
  Builder b("errors", loops::ElemType::F64, L);
  b.opaque_param("ctx");
  loops::Buffer X = b.varying_param("x", 3, {.readonly = true});
  loops::Buffer Small = b.varying_param("small", 2, {.readonly = true});
  loops::Buffer W = b.uniform_param("w", 3, {.readonly = true});
  loops::Buffer U = b.uniform_param("u", 3);
  loops::Buffer V = b.varying_param("v", 3);
  b.scratch_param();
  std::vector<InputBinding> ok{InputBinding::in(X), InputBinding::in(W)};
  using E = plastic::InternalError;
  // A varying value stored plainly into a uniform buffer.
  CHECK_THROWS_AS(emit_function(b, f, ok, std::vector{OutputBinding::to(U)}), E);
  CHECK_THROWS_WITH(emit_function(b, f, ok, std::vector{OutputBinding::to(U)}),
                    Contains("'y'") && Contains("uniform"));
  // A lane sum into a varying buffer.
  CHECK_THROWS_WITH(
      emit_function(b, f, ok, std::vector{OutputBinding::to(V, 0, StoreMode::AddLaneSum)}),
      Contains("'y'"));
  // An input that does not fit its buffer; a wrong number of bindings.
  CHECK_THROWS_WITH(emit_function(b, f, std::vector{InputBinding::in(Small), InputBinding::in(W)},
                                  std::vector{OutputBinding::to(V)}),
                    Contains("'x'") && Contains("small"));
  CHECK_THROWS_AS(
      emit_function(b, f, std::vector{InputBinding::in(X)}, std::vector{OutputBinding::to(V)}), E);
  // A non-scalar leaf bound to a scalar; an output past the end of its buffer.
  CHECK_THROWS_WITH(
      emit_function(b, f, std::vector{InputBinding::value(b.constant(1)), InputBinding::in(W)},
                    std::vector{OutputBinding::to(V)}),
      Contains("'x'"));
  CHECK_THROWS_WITH(emit_function(b, f, ok, std::vector{OutputBinding::to(V, 1)}), Contains("'y'"));
}
