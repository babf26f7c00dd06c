// Compiling and dropping a model 200 times keeps the resident set flat: each
// CompiledModel frees its machine code and tables.
#include <catch2/catch.hpp>

#include <fstream>
#include <unistd.h>

#include "compiler/backend/compiled_model.h"
#include "tests/compiler/abi/model_fixture.h"

using namespace plastic;

namespace {
long resident_kib() {
  std::ifstream f("/proc/self/statm");
  long pages = 0, resident = 0;
  f >> pages >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}
} // namespace

TEST_CASE("compile and drop a model 200 times: resident memory stays flat", "[model][memory]") {
  model::ModelFunctions fns = test::load_example("node_elu_sii_tanks.ode");
  // Warm up: the JIT, LLVM's global state and the allocator's arenas.
  for (int i = 0; i < 20; ++i)
    backend::compile_model(fns, loops::ElemType::F32);
  const long before = resident_kib();
  for (int i = 0; i < 200; ++i) {
    backend::CompiledModel cm = backend::compile_model(fns, loops::ElemType::F32);
    REQUIRE(cm.table().kernels.field);
  }
  const long after = resident_kib();
  INFO("resident before " << before << " KiB, after " << after << " KiB");
  // A leak of the kernels' code (tens of KiB per model) would add megabytes.
  CHECK(after - before < 4096);
}
