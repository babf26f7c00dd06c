// Every op of compiler/ir/op_list.h through emit_standalone -> JIT against
// the reference interpreter, lane by lane, in f64 (1e-10) and f32 (1e-5),
// at random shapes with operands drawn at random as uniform (param) or
// varying (input/state) leaves, raw or behind a fused elementwise op. Each
// case is emitted twice: the op as an output computed straight into its
// buffer, and as a materialised intermediate that is used twice.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <random>

#include "compiler/ir/ops.h"
#include "compiler/loopgen/emit_function.h"
#include "compiler/loops/loop_printer.h"
#include "tests/compiler/loopgen/loopgen_support.h"

using namespace plastic;
using namespace plastic::ir;
using namespace plastic::loopgen::test;

namespace {

using Rng = std::mt19937_64;

double tolerance(ElemType t) {
  return t == ElemType::F64 ? 1e-10 : 1e-5;
}

/// Builds the leaves of one case: uniform or varying at random; with
/// `wrap`, a leaf may come behind a fused elementwise op (so the consumer
/// reads a fused chain, not a buffer).
struct Leaves {
  Leaves(Context& c, Rng& r, bool pos = false) : ctx(c), rng(r), positive(pos) {}
  Context& ctx;
  Rng& rng;
  std::vector<const Node*> inputs;
  bool positive = false; // for log/sqrt/reciprocal/powc/div operands

  const Node* raw(Shape s) {
    std::string name = fmt::format("x{}", inputs.size());
    const Node* n = (rng() % 2) ? ctx.param(name, s) : ctx.input(name, s);
    inputs.push_back(n);
    return n;
  }
  const Node* operator()(Shape s, bool wrap = true) {
    const Node* n = raw(s);
    if (!wrap) return n;
    switch (rng() % 3) {
    case 0:
      return n;
    case 1:
      return positive ? exp(n) : tanh(n);
    default:
      return positive ? add(n, ctx.constant(1.5, s)) : mul(n, sigmoid(raw(s)));
    }
  }
};

Shape random_shape(Rng& rng, int rank) {
  Shape s;
  for (int a = 0; a < rank; ++a)
    s.push_back(static_cast<int64_t>(1 + rng() % 4));
  return s;
}

void check_both(const std::vector<const Node*>& inputs, const Node* r, const std::string& what,
                uint64_t seed, std::pair<double, double> range = {-1.0, 1.0}) {
  Function direct("op", inputs, {{"y", r}});
  // r used twice: materialised in scratch, copied out, and read by a consumer.
  Function mat("op_mat", inputs, {{"y", r}, {"z", mul(r, r)}});
  Ranges ranges = [&](const Node*) { return range; };
  for (const Function* f : {&direct, &mat}) {
    for (ElemType t : {ElemType::F64, ElemType::F32}) {
      Check c = check_standalone(*f, t, seed, ranges);
      INFO(what << " (" << f->name() << ", " << loops::elem_type_name(t) << ", seed " << seed
                << "): " << c.where);
      CHECK_FALSE(c.nan_mismatch);
      CHECK(c.max_rel <= tolerance(t));
    }
  }
}

const uint64_t kSeeds[] = {1, 2, 3};

// How often `s` occurs in `text` (a printed kernel's statements).
size_t occurrences(const std::string& text, const std::string& s) {
  size_t n = 0;
  for (size_t at = text.find(s); at != std::string::npos; at = text.find(s, at + 1))
    ++n;
  return n;
}

} // namespace

TEST_CASE("emit: leaves, constants and time", "[kernels][ops]") {
  for (uint64_t seed : kSeeds) {
    Rng rng(seed);
    Context ctx;
    Leaves x(ctx, rng);
    Shape s = random_shape(rng, 2);
    const Node* a = x(s, false);
    std::vector<double> values;
    for (int64_t i = 0; i < numel(s); ++i)
      values.push_back(0.25 * static_cast<double>(i) - 1.0);
    const Node* k = ctx.constant(values, s);
    const Node* t = ctx.time("t");
    std::vector<const Node*> in = x.inputs;
    in.push_back(t);
    check_both(in, a, "identity leaf", seed);
    check_both(in, k, "dense constant", seed);
    check_both(in, ctx.constant(0.75, s), "splat constant", seed);
    check_both(in, add(mul(a, k), broadcast(t, s, {})), "leaf * constant + t", seed);
    // A constant tensor that only a uniform chain reads: computed once.
    check_both(in, mul(a, tanh(k)), "uniform chain over a constant", seed);
  }
}

TEST_CASE("emit: unary ops", "[kernels][ops]") {
  const std::vector<std::pair<Op, double>> ops{
      {Op::Neg, 0}, {Op::Exp, 0},      {Op::Tanh, 0}, {Op::Sigmoid, 0}, {Op::Relu, 0},
      {Op::Elu, 0}, {Op::Softplus, 0}, {Op::Abs, 0},  {Op::Square, 0},  {Op::Sin, 0},
      {Op::Cos, 0}, {Op::Step, 0},     {Op::Sign, 0}, {Op::PowC, 2.0},  {Op::PowC, 3.0}};
  const std::vector<std::pair<Op, double>> positive_ops{{Op::Log, 0},        {Op::Sqrt, 0},
                                                        {Op::Reciprocal, 0}, {Op::PowC, 0.5},
                                                        {Op::PowC, -1.0},    {Op::PowC, 1.7}};
  for (uint64_t seed : kSeeds) {
    for (auto [op, p] : ops) {
      Rng rng(seed);
      Context ctx;
      Leaves x(ctx, rng);
      const Node* a = x(random_shape(rng, 2));
      check_both(x.inputs, unary(op, a, p), fmt::format("{} {}", op_name(op), p), seed, {-3, 3});
    }
    for (auto [op, p] : positive_ops) {
      Rng rng(seed);
      Context ctx;
      Leaves x(ctx, rng, true);
      const Node* a = x(random_shape(rng, 2));
      check_both(x.inputs, unary(op, a, p), fmt::format("{} {}", op_name(op), p), seed, {0.1, 3});
    }
  }
}

TEST_CASE("emit: binary ops, comparisons and select", "[kernels][ops]") {
  for (uint64_t seed : kSeeds) {
    for (Op op : {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Max, Op::Min}) {
      Rng rng(seed);
      Context ctx;
      Leaves x(ctx, rng, op == Op::Div);
      Shape s = random_shape(rng, 3);
      const Node* a = x(s);
      const Node* b = x(s);
      check_both(x.inputs, binary(op, a, b), std::string(op_name(op)), seed,
                 op == Op::Div ? std::pair{0.2, 2.0} : std::pair{-1.0, 1.0});
    }
    for (Op op : {Op::Lt, Op::Le, Op::Gt, Op::Ge, Op::Eq, Op::Ne}) {
      Rng rng(seed);
      Context ctx;
      Leaves x(ctx, rng);
      Shape s = random_shape(rng, 2);
      const Node* a = x(s);
      // b equals a in some elements so eq/ne/le/ge see ties.
      const Node* b = (rng() % 2) ? x(s) : max(a, x(s));
      const Node* c = compare(op, a, b);
      check_both(x.inputs, select(c, x(s), sin(a)), std::string(op_name(op)), seed);
    }
    // One mask feeding two selects (a compare is never materialised).
    Rng rng(seed);
    Context ctx;
    Leaves x(ctx, rng);
    Shape s = random_shape(rng, 2);
    const Node* m = gt(x(s), x(s));
    check_both(x.inputs, add(select(m, x(s), x(s)), select(m, x(s), x(s))), "shared mask", seed);
  }
}

TEST_CASE("emit: broadcast and reductions", "[kernels][ops]") {
  for (uint64_t seed : kSeeds) {
    Rng rng(seed);
    Context ctx;
    Leaves x(ctx, rng);
    Shape s = random_shape(rng, 3);
    // Every way of placing a rank-1 and a rank-2 operand in rank 3.
    for (int64_t a = 0; a < 3; ++a)
      check_both(x.inputs, mul(broadcast(x({s[static_cast<size_t>(a)]}), s, {a}), x(s)),
                 fmt::format("broadcast axis {}", a), seed);
    for (auto axes : std::vector<std::vector<int64_t>>{{0, 1}, {0, 2}, {1, 2}})
      check_both(
          x.inputs,
          broadcast(x({s[static_cast<size_t>(axes[0])], s[static_cast<size_t>(axes[1])]}), s, axes),
          "broadcast rank 2 -> 3", seed);
    check_both(x.inputs, broadcast(x({}), s, {}), "broadcast scalar", seed);
    for (Op op : {Op::ReduceSum, Op::ReduceMax})
      for (auto axes :
           std::vector<std::vector<int64_t>>{{0}, {1}, {2}, {0, 2}, {1, 2}, {0, 1, 2}}) {
        const Node* in = x(s);
        const Node* r = op == Op::ReduceSum ? reduce_sum(in, axes) : reduce_max(in, axes);
        check_both(x.inputs, r, fmt::format("{} over {} axes", op_name(op), axes.size()), seed);
      }
  }
}

TEST_CASE("emit: contractions", "[kernels][ops]") {
  // Specs over labels a..d; sizes drawn per seed.
  const std::vector<std::string> specs{
      "ab,b->a",     "ab,bc->ac",    "a,b->ab", "ab->ba",    "abc,ac->ab", "ab,ab->",
      "ab,ba->",     "abc,acd->abd", "abc->",   "abc->cab",  "ab,b,a->",   "a,->a",
      "abc,abd->cd", "ab,cb->ac",    "a,a->",   "abc,bc->a", "a,b,c->abc", "ab,bc,cd->ad"};
  for (uint64_t seed : kSeeds) {
    for (const std::string& text : specs) {
      Rng rng(seed);
      Context ctx;
      Leaves x(ctx, rng);
      EinsumSpec spec = EinsumSpec::parse(text);
      std::vector<int64_t> size(static_cast<size_t>(spec.label_bound()));
      for (int64_t& n : size)
        n = static_cast<int64_t>(1 + rng() % 5);
      std::vector<const Node*> ops;
      for (const auto& in : spec.inputs) {
        Shape s;
        for (int l : in)
          s.push_back(size[static_cast<size_t>(l)]);
        ops.push_back(x(s));
      }
      check_both(x.inputs, contract(text, ops), text, seed);
    }
  }
}

TEST_CASE("emit: a buffer times a scalar that two contractions read is summed unscaled, not "
          "stored",
          "[kernels][ops]") {
  // A step VJP's h b_i z1_bar, read by several mat-vecs: each sums the
  // buffer and scales its sums, and no scratch copy of the product exists.
  for (uint64_t seed : kSeeds) {
    Context ctx;
    const Node* a = ctx.input("a", {5, 7});
    const Node* h = ctx.param("h", {});
    const Node* v = ctx.input("v", {7});
    const Node* w = ctx.input("w", {5});
    const Node* scaled = mul(a, broadcast(h, {5, 7}, {}));
    Function f(
        "scaled_twice", {a, h, v, w},
        {{"y1", contract("ab,b->a", {scaled, v})}, {"y2", contract("ab,a->b", {scaled, w})}});
    for (ElemType t : {ElemType::F64, ElemType::F32}) {
      Check c = check_standalone(f, t, seed);
      INFO(loops::elem_type_name(t) << ", seed " << seed << ": " << c.where);
      CHECK_FALSE(c.nan_mismatch);
      CHECK(c.max_rel <= tolerance(t));
      CHECK(loopgen::emit_standalone(f, t).scratch_bytes == 0);
    }
    // A scaling contraction that also transposes is not read in place: the
    // contractions that read it still match the interpreter.
    const Node* turned = contract("ab,->ba", {a, h});
    Function g(
        "scaled_transposed", {a, h, v, w},
        {{"y1", contract("ba,b->a", {turned, v})}, {"y2", contract("ba,a->b", {turned, w})}});
    for (ElemType t : {ElemType::F64, ElemType::F32}) {
      Check c = check_standalone(g, t, seed);
      INFO(loops::elem_type_name(t) << ", seed " << seed << ": " << c.where);
      CHECK_FALSE(c.nan_mismatch);
      CHECK(c.max_rel <= tolerance(t));
    }
  }
}

TEST_CASE("emit: contractions streaming one operand share its loop nest", "[kernels][ops]") {
  // rk4's W_0 k_i at three nodes (contract_groups.h): independent mat-vecs
  // of one state are summed side by side in one pass; one that reads
  // another's result cannot join it. Each still sums in label order, so
  // the values are the interpreter's.
  for (uint64_t seed : kSeeds) {
    Context ctx;
    const Node* w = ctx.input("W", {3, 6, 5});
    const Node* k1 = ctx.input("k1", {3, 5});
    const Node* k2 = ctx.param("k2", {3, 5});
    const Node* k3 = ctx.input("k3", {3, 5});
    auto matvec = [&](const Node* k) { return contract("hij,hj->hi", {w, k}); };
    const Node* y1 = matvec(k1);
    const Node* y2 = matvec(tanh(k2)); // a fused operand beside the shared one
    const Node* y3 = matvec(k3);
    const Node* y4 = contract("hij,hi->hj", {w, tanh(y1)}); // depends on y1
    const Node* y5 = contract("hij,hi->hj", {w, y2});       // depends on y2, not on y4
    const Node* out =
        add(add(add(tanh(y1), mul(y2, y3)), y3), contract("hi,hj->hi", {y1, add(y4, y5)}));
    Function f("shared_pass", {w, k1, k2, k3}, {{"y", out}});
    for (ElemType t : {ElemType::F64, ElemType::F32}) {
      Check c = check_standalone(f, t, seed);
      INFO(loops::elem_type_name(t) << ", seed " << seed << ": " << c.where);
      CHECK_FALSE(c.nan_mismatch);
      CHECK(c.max_rel <= tolerance(t));
    }
    // One nest for y1..y3 (twelve accumulators), one for y4 and y5.
    const std::string text = loops::print(loopgen::emit_standalone(f, ElemType::F64));
    auto count = [&](const std::string& s) { return occurrences(text, s); };
    CHECK(count("acc11_v = fma(") == 1);
    CHECK(count("acc12_v") == 0);
    CHECK(count("acc7_v = fma(W[") == 2); // y1..y3's nest and y4, y5's
  }
}

TEST_CASE("emit: a contraction alone sums eight rows side by side and the rest in fours and ones",
          "[kernels][ops]") {
  // Two fma ports of four cycles' latency need eight independent chains: a
  // mat-vec of 13 rows is summed in a block of 8 accumulators, one of 4 and
  // a single row, each row in label order, so the values are the
  // interpreter's whatever the blocks.
  Context ctx;
  const Node* w = ctx.param("W", {13, 7});
  const Node* x = ctx.input("x", {7});
  Function f("matvec13", {w, x}, {{"y", tanh(contract("ab,b->a", {w, x}))}});
  const std::string text = loops::print(loopgen::emit_standalone(f, ElemType::F32));
  auto count = [&](const std::string& s) { return occurrences(text, s); };
  CHECK(count("acc0_v = fma(") == 3); // the blocks of 8, 4 and 1
  CHECK(count("acc7_v = fma(") == 1);
  CHECK(count("acc4_v = fma(") == 1);
  CHECK(count("acc8_v") == 0);
  for (uint64_t seed : kSeeds)
    for (ElemType t : {ElemType::F64, ElemType::F32}) {
      Check c = check_standalone(f, t, seed);
      INFO(loops::elem_type_name(t) << ", seed " << seed << ": " << c.where);
      CHECK_FALSE(c.nan_mismatch);
      CHECK(c.max_rel <= tolerance(t));
    }
}

TEST_CASE("emit: 512-bit tiles let four contractions share a pass", "[kernels][ops]") {
  // rk4's step_vjp streams z1_bar and z0 transposed for four stage vectors
  // each: AVX2's 16 registers hold three members' accumulators, AVX-512's 32
  // hold four (contract_groups.h). The values stay the interpreter's.
  Context ctx;
  const Node* w = ctx.input("W", {2, 8, 5}); // rows: two blocks of kContractBlock
  std::vector<const Node*> ks;
  const Node* sum = nullptr;
  for (int i = 0; i < 4; ++i) {
    ks.push_back(ctx.input(fmt::format("k{}", i), {2, 5}));
    const Node* y = tanh(contract("hij,hj->hi", {w, ks.back()}));
    sum = sum ? add(sum, y) : y;
  }
  std::vector<const Node*> inputs{w};
  inputs.insert(inputs.end(), ks.begin(), ks.end());
  Function f("four_matvecs", inputs, {{"y", sum}});
  auto nests = [&](ElemType t, int lanes) {
    return occurrences(loops::print(loopgen::emit_standalone(f, t, lanes)), "acc0_v = fma(W[");
  };
  CHECK(nests(ElemType::F64, 4) == 2); // 256 bits: three, then one
  CHECK(nests(ElemType::F32, 8) == 2);
  CHECK(nests(ElemType::F64, 8) == 1); // 512 bits: all four at once
  CHECK(nests(ElemType::F32, 16) == 1);
  for (uint64_t seed : kSeeds)
    for (auto [t, lanes] : {std::pair{ElemType::F64, 8}, std::pair{ElemType::F32, 16}}) {
      Check c = check_standalone(f, t, seed, {}, lanes);
      INFO(loops::elem_type_name(t) << ", seed " << seed << ": " << c.where);
      CHECK_FALSE(c.nan_mismatch);
      CHECK(c.max_rel <= tolerance(t));
    }
}

TEST_CASE("emit: reshape, slice, pad, concat", "[kernels][ops]") {
  for (uint64_t seed : kSeeds) {
    Rng rng(seed);
    Context ctx;
    Leaves x(ctx, rng);
    Shape s = random_shape(rng, 3);
    int64_t n = numel(s);
    check_both(x.inputs, reshape(x(s), {n}), "reshape to flat", seed);
    check_both(x.inputs, reshape(x({n}), s), "reshape from flat", seed);
    check_both(x.inputs, reshape(x(s), {s[0] * s[1], s[2]}), "reshape merge", seed);
    // A reshape of a broadcast needs per-axis indices below a flat offset.
    check_both(x.inputs, reshape(broadcast(x({s[1]}), {s[0], s[1]}, {1}), {s[0] * s[1]}),
               "reshape of broadcast", seed);
    // Slices: every axis, only the first axis, and a slice of a slice.
    Shape big{s[0] + 2, s[1] + 1, s[2] + 3};
    check_both(x.inputs, slice(x(big), {1, 0, 2}, s), "slice", seed);
    check_both(x.inputs, slice(x(big), {2, 0, 0}, {s[0], big[1], big[2]}), "slice first axis",
               seed);
    check_both(x.inputs, slice(slice(x(big), {1, 1, 1}, {s[0] + 1, s[1], s[2] + 2}), {0, 0, 1}, s),
               "slice of slice", seed);
    check_both(x.inputs, mul(slice(x({n + 3}), {2}, {n}), x({n})), "slice rank 1", seed);
    check_both(x.inputs, pad(x(s), {1, 0, 2}, {0, 2, 1}), "pad", seed);
    check_both(x.inputs, pad(x({s[0]}), {3}, {1}), "pad rank 1", seed);
    for (int64_t axis = 0; axis < 3; ++axis) {
      Shape s2 = s;
      s2[static_cast<size_t>(axis)] += 2;
      check_both(x.inputs, concat({x(s), x(s2), x(s)}, axis), fmt::format("concat axis {}", axis),
                 seed);
    }
  }
}

TEST_CASE("emit: softmax, logsumexp, layernorm", "[kernels][ops]") {
  for (uint64_t seed : kSeeds) {
    Rng rng(seed);
    Context ctx;
    Leaves x(ctx, rng);
    Shape s = random_shape(rng, 3);
    s[1] += 1; // at least two elements along the middle axis
    for (int64_t axis = 0; axis < 3; ++axis) {
      check_both(x.inputs, softmax(x(s), axis), fmt::format("softmax axis {}", axis), seed,
                 {-5, 5});
      check_both(x.inputs, logsumexp(x(s), axis), fmt::format("logsumexp axis {}", axis), seed,
                 {-5, 5});
      check_both(x.inputs, layernorm(x(s), axis, 1e-5), fmt::format("layernorm axis {}", axis),
                 seed);
    }
    check_both(x.inputs, softmax(x({7}), 0), "softmax rank 1", seed, {-30, 30});
  }
}

TEST_CASE("emit: lanes are independent", "[kernels][ops]") {
  // All-varying operands with different data per lane, at several tile
  // widths: each lane must match its own reference.
  Context ctx;
  const Node* W = ctx.state("W", {3, 4});
  const Node* v = ctx.input("v", {4});
  const Node* y = softmax(add(matvec(W, v), ctx.constant({0.5, -1, 2}, {3})), 0);
  Function f("lanes", {W, v}, {{"y", y}, {"s", reduce_sum(mul(W, W), {0, 1})}});
  for (int lanes : {1, 3, 4, 8, 16}) {
    for (ElemType t : {ElemType::F64, ElemType::F32}) {
      Check c = check_standalone(f, t, 7, {}, lanes);
      INFO("L=" << lanes << " " << loops::elem_type_name(t) << ": " << c.where);
      CHECK_FALSE(c.nan_mismatch);
      CHECK(c.max_rel <= tolerance(t));
    }
  }
}

TEST_CASE("emit: extreme values follow the interpreter", "[kernels][ops]") {
  Context ctx;
  const Node* x = ctx.input("x", {4});
  Function f("nan", {x},
             {{"mx", reduce_max(x, {0})},
              {"sm", softmax(x, 0)},
              {"lse", logsumexp(x, 0)},
              {"mn", min(x, ctx.constant(0.0, {4}))}});
  for (auto range : {std::pair{-1e300, 1e300}, std::pair{-1.0, 1.0}}) {
    Check c = check_standalone(f, ElemType::F64, 3, [&](const Node*) { return range; });
    INFO(c.where);
    CHECK_FALSE(c.nan_mismatch);
    CHECK(c.max_rel <= 1e-10);
  }
}
