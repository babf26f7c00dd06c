// The JIT's on-disk object cache and parallel kernel compilation, through
// the public Jit: a second JIT of the same module links every kernel from
// the cache and computes bit-identical results; a damaged entry is rebuilt;
// other options miss; PLASTIC_CACHE_DIR=off keeps nothing.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "compiler/backend/llvm/jit.h"
#include "compiler/loops/loop_interpreter.h"
#include "tests/compiler/backend/jit_support.h"
#include "tests/compiler/backend/loop_programs.h"
#include "tests/support/scoped_env.h"
#include "tests/support/temp_dir.h"

using namespace plastic::loops;
using namespace plastic::backend;
using namespace plastic::backend::test;
using plastic::test::ScopedEnv;
namespace fs = std::filesystem;

namespace {

Module three_kernels() {
  return Module{"cached",
                {matvec(ElemType::F64, 0, 4, 20), softmax(ElemType::F64, 0, 20),
                 delta_update(ElemType::F64, 0, 4, 20)}};
}

CompileOptions packed_options(int opt_level = 3) {
  CompileOptions o;
  o.packed_entries = true;
  o.opt_level = opt_level;
  return o;
}

// Runs every kernel of `mod` from `jm` on fixed random inputs; the frames.
std::vector<Frame> run_all(const Module& mod, const JitModule& jm) {
  std::vector<Frame> out;
  for (const Function& fn : mod.functions) {
    Frame f = make_frame(fn, {}, 7);
    jm.packed(fn.name)(f.args().data());
    out.push_back(std::move(f));
  }
  return out;
}

int object_files(const fs::path& dir) {
  int n = 0;
  if (!fs::exists(dir)) return 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    n += e.path().extension() == ".o" ? 1 : 0;
  return n;
}

fs::path first_object(const fs::path& dir) {
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().extension() == ".o") return e.path();
  return {};
}

} // namespace

TEST_CASE("a second JIT links every kernel from the object cache, bit for bit",
          "[backend][jit][cache]") {
  plastic::rt::test::TempDir tmp;
  ScopedEnv dir("PLASTIC_CACHE_DIR", (tmp / "cache").string());
  ScopedEnv threads("PLASTIC_COMPILE_THREADS", "2");
  const Module mod = three_kernels();

  Jit first(packed_options());
  JitModule a = first.add(mod);
  CHECK(a.stats().kernels == 3);
  CHECK(a.stats().cached == 0);
  CHECK(a.stats().threads == 2);
  CHECK(object_files(tmp / "cache") == 3);

  Jit second(packed_options()); // a new engine, as a new process would have
  JitModule b = second.add(mod);
  CHECK(b.stats().cached == 3);
  CHECK(b.stats().optimize_ms == 0);

  const std::vector<Frame> fa = run_all(mod, a), fb = run_all(mod, b);
  for (size_t k = 0; k < mod.functions.size(); ++k) {
    INFO(mod.functions[k].name);
    for (size_t p = 0; p < fa[k].buffers.size(); ++p) {
      const HostBuffer &x = fa[k].buffers[p], &y = fb[k].buffers[p];
      REQUIRE(x.size() == y.size());
      for (int64_t i = 0; i < x.size(); ++i)
        CHECK(x.get(i) == y.get(i));
    }
    // And both agree with the interpreter.
    Frame ref = make_frame(mod.functions[k], {}, 7);
    interpret(mod.functions[k], ref.args());
    CHECK(compare(mod.functions[k], fb[k], ref).max_rel <= 1e-12);
  }
}

TEST_CASE("a damaged cache entry is rebuilt and other options miss", "[backend][jit][cache]") {
  plastic::rt::test::TempDir tmp;
  ScopedEnv dir("PLASTIC_CACHE_DIR", (tmp / "cache").string());
  const Module mod = three_kernels();
  {
    JitModule warm = Jit(packed_options()).add(mod);
  }
  const fs::path entry = first_object(tmp / "cache");
  REQUIRE(!entry.empty());
  std::ofstream(entry, std::ios::trunc) << "not an object"; // a disk fault

  Jit again(packed_options());
  JitModule m = again.add(mod);
  CHECK(m.stats().cached == 2);
  CHECK(fs::file_size(entry) > 100); // rewritten with a real object
  for (const Function& fn : mod.functions) {
    Frame out = make_frame(fn, {}, 3), ref = out.clone();
    m.packed(fn.name)(out.args().data());
    interpret(fn, ref.args());
    CHECK(compare(fn, out, ref).max_rel <= 1e-12);
  }

  // Another optimisation level is another machine code: nothing is shared.
  JitModule o1 = Jit(packed_options(1)).add(mod);
  CHECK(o1.stats().cached == 0);
  CHECK(object_files(tmp / "cache") == 6);
}

TEST_CASE("PLASTIC_CACHE_DIR=off compiles without keeping anything", "[backend][jit][cache]") {
  plastic::rt::test::TempDir tmp;
  ScopedEnv home("XDG_CACHE_HOME", (tmp / "xdg").string());
  ScopedEnv dir("PLASTIC_CACHE_DIR", "off");
  const Module mod = three_kernels();
  JitModule a = Jit(packed_options()).add(mod);
  JitModule b = Jit(packed_options()).add(mod);
  CHECK(b.stats().cached == 0);
  CHECK(object_files(tmp.path()) == 0);
}
