// JIT module lifecycle: compile times, drop and recompile without leaking,
// error handling of the JIT wrapper.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "compiler/backend/llvm/jit.h"
#include "compiler/loops/error.h"
#include "compiler/loops/loop_interpreter.h"
#include "tests/compiler/backend/jit_support.h"
#include "tests/compiler/backend/loop_programs.h"

using namespace plastic::loops;
using namespace plastic::backend;
using namespace plastic::backend::test;

namespace {

// One model-sized module: the kernels a small fast-weight model needs.
Module model_module(ElemType t) {
  return Module{"model",
                {matvec(t, 0, 4, 20), delta_update(t, 0, 4, 20), softmax(t, 0, 20),
                 linear_vjp(t, 0, 10, 80), delta_field(t, 0, 21, 4, 20)}};
}

} // namespace

namespace {

// Compiles, calls and drops `mod` (whose first function is a matvec) 20 +
// `cycles` times; returns the RSS growth over the last `cycles` in bytes.
int64_t recompile_cycles(const Module& mod, int cycles) {
  Jit jit;
  const Function& fn = mod.functions[0];
  Frame frame = make_frame(fn, {}, 3);
  Frame ref = frame.clone();
  interpret(fn, ref.args());
  double compile_ms = 0;
  auto cycle = [&] {
    JitModule m = jit.add(mod);
    compile_ms += m.stats().total_ms();
    auto* f = m.get<void(const void*, const void*, const void*, void*, void*)>("matvec");
    Frame out = frame.clone();
    f(nullptr, out.buffers[1].data(), out.buffers[2].data(), out.buffers[3].data(),
      out.buffers[4].data());
    CHECK(compare(fn, out, ref).max_rel <= 1e-5);
    m.drop();
    CHECK_FALSE(m.loaded());
    CHECK_THROWS_AS(m.address("matvec"), CodegenError);
  };
  // Warm-up: LLVM's one-time allocations (pass registries, pools) settle.
  for (int i = 0; i < 20; ++i)
    cycle();
  compile_ms = 0;
  const int64_t before = resident_bytes();
  std::vector<int64_t> samples;
  for (int i = 0; i < cycles; ++i) {
    cycle();
    if (i % 50 == 49) samples.push_back(resident_bytes());
  }
  const int64_t after = resident_bytes();
  fmt::print("\nRSS over {} compile/drop cycles of a {}-kernel module ({:.1f} ms per compile): "
             "{:.2f} -> {:.2f} MiB (",
             cycles, mod.functions.size(), compile_ms / cycles, before / 1048576.0,
             after / 1048576.0);
  for (int64_t s : samples)
    fmt::print(" {:.2f}", s / 1048576.0);
  fmt::print(" MiB every 50 cycles), growth {:.0f} KiB\n", (after - before) / 1024.0);
  return after - before;
}

} // namespace

TEST_CASE("dropping and recompiling a model 200 times does not leak", "[backend][jit]") {
  // Each cycle maps tens of KiB of code and builds ~1 MiB of IR and machine
  // IR; a leak of either would add several MiB over 200 cycles.
  const Module mod{"small", {matvec(ElemType::F32, 0, 2, 8), softmax(ElemType::F32, 0, 16)}};
  CHECK(recompile_cycles(mod, 200) < 1048576);
}

TEST_CASE("dropping and recompiling a 5-kernel model 200 times does not leak",
          "[backend][jit][slow]") {
  CHECK(recompile_cycles(model_module(ElemType::F32), 200) < 2 * 1048576);
}

TEST_CASE("modules loaded together may define the same names and unknown functions are errors",
          "[backend][jit]") {
  // Each module links into a library of its own: two compilations of one
  // model (the REPL's old and new specialisation) coexist.
  Jit jit;
  const Function f = softmax(ElemType::F64, 0, 4);
  JitModule a = jit.add(Module{"a", {f}});
  JitModule b = jit.add(Module{"b", {f}});
  CHECK(a.address("softmax") != b.address("softmax"));
  CHECK_THROWS_AS(a.address("nope"), CodegenError);
  CHECK_THROWS_AS(a.packed("softmax"), CodegenError); // not compiled with packed entries
  a.drop();
  CHECK(b.address("softmax") != nullptr); // b is untouched by a's removal
  JitModule moved = std::move(b);
  CHECK(moved.loaded());
  CHECK_FALSE(b.loaded());
}

TEST_CASE("JIT refuses malformed loop IR as an internal error", "[backend][jit]") {
  Function f = matvec(ElemType::F64, 0, 2, 3);
  f.indices.back().offset = 100; // the store now runs past y
  CHECK_THROWS_AS(test_jit().add(Module{"bad", {f}}), plastic::InternalError);
}
