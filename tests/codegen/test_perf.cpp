// Throughput report (printed, never asserted): matvec GFLOP/s, the fused
// Delta-rule field, and polynomial vs libm transcendental functions — the
// measurement behind MathMode::Polynomial being the default. The quick case
// runs with the default suite; the full table is [slow].
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "compiler/codegen/llvm/options.h"
#include "tests/codegen/perf.h"

using namespace plastic::codegen;
using namespace plastic::codegen::test;

namespace {

struct Shape {
  int64_t heads, d;
};

void matvec_row(Shape s, ElemType t, int lanes) {
  const double hot = matvec_gflops(t, lanes, s.heads, s.d, 1);
  const double stream = matvec_gflops(t, lanes, s.heads, s.d, 256);
  fmt::print("  matvec [{},{},{}] {} L={:<2}: {:6.1f} GFLOP/s one tile (in cache), {:6.1f} GFLOP/s over 256 tiles\n",
             s.heads, s.d, s.d, elem_type_name(t), lanes, hot, stream);
}

void math_row(UnaryOp op, ElemType t) {
  const double p = math_ns_per_element(op, t, MathMode::Polynomial);
  const double l = math_ns_per_element(op, t, MathMode::Libm);
  fmt::print("    {:<9} {}: poly {:6.3f} ns  libm {:6.3f} ns  (libm/poly {:.1f}x)\n", op_name(op), elem_type_name(t), p,
             l, l / p);
}

}  // namespace

TEST_CASE("throughput report, quick", "[codegen][perf]") {
  fmt::print("\nthroughput, single thread, cpu {}\n", describe_target().substr(0, describe_target().find(", features")));
  matvec_row({4, 20}, ElemType::F32, 8);
  matvec_row({4, 20}, ElemType::F64, 4);
  for (ElemType t : {ElemType::F32, ElemType::F64})
    fmt::print("  delta_field d_in=21 heads=4 d=20 {}: {:.3g} samples/s\n", elem_type_name(t),
               delta_field_samples_per_s(t, 0, 21, 4, 20));
  fmt::print("  ns per element (polynomial vs scalarised llvm intrinsics / libm calls):\n");
  math_row(UnaryOp::Exp, ElemType::F32);
  math_row(UnaryOp::Tanh, ElemType::F32);
  math_row(UnaryOp::Tanh, ElemType::F64);
  SUCCEED();
}

TEST_CASE("throughput report, full", "[codegen][perf][slow]") {
  fmt::print("\nthroughput, single thread, {}\n", describe_target());
  for (Shape s : {Shape{4, 20}, Shape{8, 32}, Shape{1, 64}})
    for (auto [t, lanes] :
         {std::pair{ElemType::F32, 8}, std::pair{ElemType::F32, 16}, std::pair{ElemType::F64, 4}, std::pair{ElemType::F64, 8}})
      matvec_row(s, t, lanes);
  for (ElemType t : {ElemType::F32, ElemType::F64})
    fmt::print("  delta_field d_in=21 heads=4 d=20 {}: {:.3g} samples/s\n", elem_type_name(t),
               delta_field_samples_per_s(t, 0, 21, 4, 20));
  fmt::print("  ns per element (polynomial vs scalarised llvm intrinsics / libm calls):\n");
  for (UnaryOp op : {UnaryOp::Exp, UnaryOp::Expm1, UnaryOp::Log, UnaryOp::Log1p, UnaryOp::Tanh, UnaryOp::Sigmoid,
                     UnaryOp::Softplus})
    for (ElemType t : {ElemType::F32, ElemType::F64}) math_row(op, t);
  SUCCEED();
}
