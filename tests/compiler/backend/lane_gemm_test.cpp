// θ-gradient nests lowered as GEMMs over the lanes (llvm/lane_gemm.h),
// against the reference interpreter: the shapes the lowering must get right
// (partial column vectors, fewer columns than lanes, row blocks with a
// remainder, several terms with signs and scales, row sides that are
// expressions, two row loops, a nest inside an enclosing loop, rows that
// share their target) at every tile width the lowering supports.
#include <optional>

#include <catch2/catch.hpp>

#include "compiler/loops/bilinear.h"
#include "compiler/loops/loop_builder.h"
#include "compiler/loops/loop_interpreter.h"
#include "compiler/loops/loop_verifier.h"
#include "tests/compiler/backend/jit_support.h"

using namespace plastic::loops;
using namespace plastic::backend;
using namespace plastic::backend::test;

namespace {

// U[i*n + j] += lanesum(X[i] Y[j]): a dense layer's weight gradient, with
// the column loop outside when `column_outer` (the order must not matter).
Function outer_product(ElemType type, int lanes, int64_t m, int64_t n, bool column_outer) {
  Builder b("outer_product", type, lanes);
  Buffer x = b.varying_param("X", m, {.readonly = true});
  Buffer y = b.varying_param("Y", n, {.readonly = true});
  Buffer u = b.uniform_param("U", m * n);
  auto body = [&](const Index& i, const Index& j) {
    b.accumulate_lanes(u, i * n + j, b.mul(b.load(x, i), b.load(y, j)));
  };
  if (column_outer)
    b.loop("j", 0, n, [&](Index j) { b.loop("i", 0, m, [&](Index i) { body(i, j); }); });
  else
    b.loop("i", 0, m, [&](Index i) { b.loop("j", 0, n, [&](Index j) { body(i, j); }); });
  return b.finish();
}

// Several terms as a fused RK step's VJP sums them over its stages, with
// negations, a constant scale, an fma, column sides that are expressions
// and one that is uniform; with `row_expression`, a row side that is not a
// load (left to the ordinary lowering, which must still be right).
Function stage_sum(ElemType type, int lanes, int64_t m, int64_t n, bool row_expression = false) {
  Builder b("stage_sum", type, lanes);
  Buffer x = b.varying_param("X", 3 * m, {.readonly = true});
  Buffer y = b.varying_param("Y", 2 * n, {.readonly = true});
  Buffer w = b.uniform_param("w", n, {.readonly = true});
  Buffer u = b.uniform_param("U", m * n);
  b.loop("i", 0, m, [&](Index i) {
    b.loop("j", 1, n + 1, [&](Index j) { // a loop that does not start at 0
      Expr x0 = b.load(x, i), x1 = b.load(x, i + m), x2 = b.load(x, i + 2 * m);
      Expr y0 = b.load(y, j - 1), y1 = b.load(y, j + (n - 1));
      Expr first = b.neg(b.mul(y0, x0));
      Expr x1_side = row_expression ? b.mul(x1, b.tanh(x2)) : x1;
      Expr second = b.mul(x1_side, b.mul(b.constant(0.5), y1));
      Expr third = b.fma(x0, b.mul(y1, y0), b.mul(x2, b.load(w, j - 1)));
      b.accumulate_lanes(u, i * n + (j - 1), b.sub(b.add(first, second), third));
    });
  });
  return b.finish();
}

// The Delta CDE's key and value projections: heads x rows x columns.
Function heads(ElemType type, int lanes, int64_t h, int64_t d, int64_t n) {
  Builder b("heads", type, lanes);
  Buffer v = b.varying_param("V", h * d, {.readonly = true});
  Buffer x = b.varying_param("x", n, {.readonly = true});
  Buffer u = b.uniform_param("U", h * d * n);
  b.loop("h", 0, h, [&](Index hh) {
    b.loop("i", 0, d, [&](Index i) {
      b.loop("j", 0, n, [&](Index j) {
        b.accumulate_lanes(u, hh * (d * n) + i * n + j,
                           b.neg(b.mul(b.load(x, j), b.load(v, hh * d + i))));
      });
    });
  });
  return b.finish();
}

// A nest inside a loop that does something else too, and rows that all
// add into the same column (row stride 0).
Function enclosed(ElemType type, int lanes, int64_t m, int64_t n) {
  Builder b("enclosed", type, lanes);
  Buffer x = b.varying_param("X", 2 * m, {.readonly = true});
  Buffer y = b.varying_param("Y", 2 * n, {.readonly = true});
  Buffer u = b.uniform_param("U", 2 * m * n);
  Buffer shared = b.uniform_param("S", n);
  Buffer out = b.varying_param("out", 2);
  b.loop("s", 0, 2, [&](Index s) {
    b.store(out, s, b.load(x, s * m));
    b.loop("i", 0, m, [&](Index i) {
      b.loop("j", 0, n, [&](Index j) {
        b.accumulate_lanes(u, s * (m * n) + i * n + j,
                           b.mul(b.load(x, s * m + i), b.load(y, s * n + j)));
      });
    });
    b.loop("i", 0, m, [&](Index i) {
      b.loop("j", 0, n, [&](Index j) {
        b.accumulate_lanes(shared, j, b.mul(b.load(x, s * m + i), b.load(y, s * n + j)));
      });
    });
  });
  return b.finish();
}

double tolerance(ElemType t) {
  return t == ElemType::F64 ? 1e-12 : 1e-5;
}

// A JIT that lowers every nest it can as a GEMM, however small.
Jit& gemm_jit() {
  static std::unique_ptr<Jit> jit = [] {
    CompileOptions o;
    o.packed_entries = true;
    o.lane_gemm = LaneGemm::Always;
    return std::make_unique<Jit>(o);
  }();
  return *jit;
}

// fn through gemm_jit() (and, for comparison, the default JIT that keeps
// small nests element-wise) against the interpreter.
void check(const Function& fn) {
  REQUIRE(verify(fn).empty());
  JitModule jm = gemm_jit().add(Module{"gemm_" + fn.name, {fn}});
  for (uint64_t seed : {1, 2}) {
    Frame ref = make_frame(fn, {}, seed);
    Frame out = ref.clone();
    jm.packed(fn.name)(out.args().data());
    interpret(fn, ref.args());
    for (const Comparison& c : {compare(fn, out, ref), run_both(fn, {}, seed)}) {
      INFO(fn.name << " " << elem_type_name(fn.type) << " L=" << fn.lanes << " seed " << seed
                   << ": " << c.where << " rel " << c.max_rel);
      CHECK_FALSE(c.nan_mismatch);
      CHECK(c.max_rel <= tolerance(fn.type));
    }
  }
}

struct Tile {
  ElemType type;
  int lanes;
};
const Tile kTiles[] = {{ElemType::F64, 0}, {ElemType::F32, 0}, {ElemType::F32, 16},
                       {ElemType::F64, 8}, {ElemType::F64, 2}, {ElemType::F32, 4},
                       {ElemType::F64, 32}};

} // namespace

TEST_CASE("lane GEMM: a dense layer's weight gradient", "[backend][jit][lane_gemm]") {
  for (const Tile& t : kTiles)
    for (int64_t m : {1, 5, 9})
      for (int64_t n : {3, 16, 37, 70}) {
        INFO("m " << m << " n " << n);
        check(outer_product(t.type, t.lanes, m, n, false));
        check(outer_product(t.type, t.lanes, m, n, true));
      }
}

TEST_CASE("lane GEMM: terms summed over stages", "[backend][jit][lane_gemm]") {
  for (const Tile& t : kTiles)
    for (int64_t n : {7, 21, 64}) {
      INFO("n " << n);
      check(stage_sum(t.type, t.lanes, 6, n));
      check(stage_sum(t.type, t.lanes, 6, n, true));
    }
}

TEST_CASE("lane GEMM: heads, enclosing loops, shared targets", "[backend][jit][lane_gemm]") {
  for (const Tile& t : kTiles) {
    check(heads(t.type, t.lanes, 3, 20, 21));
    check(enclosed(t.type, t.lanes, 7, 19));
  }
}

// ---- which nests are recognised --------------------------------------------

namespace {

// The nest rooted at the function's first loop.
std::optional<BilinearLaneSum> match_first(const Function& fn) {
  for (const Stmt& s : fn.body)
    if (s.kind == StmtKind::Loop) return match_bilinear_lane_sum(fn, s);
  return std::nullopt;
}

} // namespace

TEST_CASE("lane GEMM: the nests recognised and their terms", "[backend][lane_gemm]") {
  const Function dense = outer_product(ElemType::F64, 4, 5, 7, true);
  std::optional<BilinearLaneSum> m = match_first(dense);
  REQUIRE(m);
  CHECK(dense.loops[m->col_loop].name == "j"); // the unit-stride loop, though outer
  REQUIRE(m->row_loops.size() == 1);
  CHECK(dense.loops[m->row_loops[0]].name == "i");
  CHECK(m->columns(dense) == 7);
  CHECK(m->rows(dense) == 5);
  REQUIRE(m->terms.size() == 1);
  CHECK_FALSE(m->terms[0].negate);

  const Function stages = stage_sum(ElemType::F64, 4, 6, 21);
  m = match_first(stages);
  REQUIRE(m);
  REQUIRE(m->terms.size() == 4); // -y0 x0, x1 0.5 y1, -(x0 y1 y0), -(x2 w)
  CHECK(m->terms[0].negate);
  CHECK_FALSE(m->terms[1].negate);
  CHECK(m->terms[1].row_factors.size() == 1);
  REQUIRE(m->terms[1].col_factors.size() == 1); // 0.5 y1, an expression
  CHECK(stages.exprs[m->terms[1].col_factors[0]].kind == ExprKind::Binary);
  CHECK(m->terms[2].negate);
  CHECK(m->terms[2].col_factors.size() == 1); // y1 y0
  CHECK(m->terms[3].negate);

  const Function expr_row = stage_sum(ElemType::F64, 4, 6, 21, true);
  m = match_first(expr_row);
  REQUIRE(m);
  CHECK(m->terms[1].row_factors.size() == 1); // x1 tanh(x2) depends on the row only

  const Function h = heads(ElemType::F64, 4, 3, 20, 21);
  m = match_first(h);
  REQUIRE(m);
  CHECK(m->row_loops.size() == 2);
  CHECK(m->rows(h) == 60);
  CHECK(m->terms[0].negate);
  // Rows flattened: V[h*d + i] has stride 1, U[h*d*n + i*n + j] stride n.
  CHECK(m->row_stride(h, h.indices[h.exprs[m->terms[0].row_factors[0]].index]) == 1);
  CHECK(m->row_stride(h, h.indices[m->store->index]) == 21);
}

TEST_CASE("lane GEMM: what is left to the ordinary lowering", "[backend][lane_gemm]") {
  auto nest = [](auto&& value, bool set = false, int64_t col_stride = 1) {
    Builder b("f", ElemType::F64, 4);
    Buffer x = b.varying_param("X", 4, {.readonly = true});
    Buffer y = b.varying_param("Y", 8, {.readonly = true});
    Buffer u = b.uniform_param("U", 64);
    b.loop("i", 0, 4, [&](Index i) {
      b.loop("j", 0, 8, [&](Index j) {
        Expr v = value(b, b.load(x, i), b.load(y, j), u, i, j);
        if (set)
          b.store(u, i * 8 + j * col_stride, b.constant(0));
        else
          b.accumulate_lanes(u, i * 8 + j * col_stride, v);
      });
    });
    return b.finish();
  };
  auto product = [](Builder& b, Expr x, Expr y, Buffer, const Index&, const Index&) {
    return b.mul(x, y);
  };
  CHECK(match_first(nest(product)));
  CHECK_FALSE(match_first(nest(product, true)));     // not a lane sum
  CHECK_FALSE(match_first(nest(product, false, 2))); // no unit-stride loop
  CHECK_FALSE(match_first(nest(
      [](Builder& b, Expr x, Expr y, Buffer, const Index&, const Index&) { return b.add(x, y); })));
  CHECK_FALSE(match_first(nest([](Builder& b, Expr x, Expr y, Buffer, const Index&, const Index&) {
    return b.tanh(b.mul(x, y)); // not a sum of products
  })));
  CHECK_FALSE(match_first(nest([](Builder& b, Expr x, Expr, Buffer, const Index&, const Index&) {
    return b.mul(x, x); // no column side
  })));
  CHECK_FALSE(
      match_first(nest([](Builder& b, Expr x, Expr y, Buffer u, const Index& i, const Index& j) {
        return b.mul(b.mul(x, y), b.load(u, i * 8 + j)); // reads its target
      })));
}
