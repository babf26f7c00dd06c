// The AOT object of a model: built in the test, linked into a small C++
// program with the system compiler, run; its table and its kernels' numbers
// must be those of the JIT-compiled model.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "compiler/backend/compiled_model.h"
#include "runtime/solvers/model_view.h"
#include "tests/compiler/abi/model_fixture.h"

using namespace plastic;
using namespace plastic::model;
using namespace plastic::abi;
using namespace plastic::backend;

namespace {

// Deterministic inputs both programs compute the same way.
const char* kInputs = R"(
static double input_value(long i, double k) { return std::sin(k * static_cast<double>(i) + 0.25); }
)";

std::string run_capture(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
    out.append(buf.data(), n);
  pclose(p);
  return out;
}

static double input_value(long i, double k) {
  return std::sin(k * static_cast<double>(i) + 0.25);
}

} // namespace

TEST_CASE("AOT object: linked into a C++ program, same table and numbers as the JIT",
          "[model][aot]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / fmt::format("plastic_aot_{}", ::getpid());
  fs::create_directories(dir);
  ModelFunctions fns = test::load_example("fwp_delta_cde.ode");
  emit_model_object(fns, loops::ElemType::F64, (dir / "model.o").string(),
                    (dir / "model.h").string());
  REQUIRE(fs::exists(dir / "model.o"));
  REQUIRE(fs::exists(dir / "model.h"));

  // The program: take the table from the entry point, run field and step_vjp.
  std::ofstream prog(dir / "main.cpp");
  prog << "#include <cmath>\n#include <cstdio>\n#include <cstdlib>\n#include <vector>\n"
       << "#include \"runtime/abi.h\"\n#include \"model.h\"\n"
       << kInputs << R"(
int main() {
  const plastic_model* m = plastic_model_v1();
  std::printf("%s %d %d %ld %ld %ld %d %s\n", m->name, m->dtype, m->lanes, (long)m->n_state, (long)m->n_params,
              (long)m->n_input, m->n_param_entries, m->params[0].name);
  const long L = m->lanes, n = m->n_state, P = m->n_params, mi = m->n_input;
  std::vector<double> z(n * L), th(P), u(4 * mi * L), dz(n * L), zb(n * L, 0.0), thb(P, 0.0), ub(4 * mi * L, 0.0);
  for (long i = 0; i < n * L; ++i) z[i] = input_value(i, 0.37);
  for (long i = 0; i < P; ++i) th[i] = 0.2 * input_value(i, 0.11);
  for (long i = 0; i < 4 * mi * L; ++i) u[i] = input_value(i, 0.05);
  size_t bytes = m->scratch.step_vjp > m->scratch.field ? m->scratch.step_vjp : m->scratch.field;
  void* s = std::aligned_alloc(64, (bytes + 64) / 64 * 64);
  m->kernels.field(m->ctx, 0.5, z.data(), th.data(), u.data(), dz.data(), s);
  m->kernels.step_vjp(m->ctx, 0.5, 1.0, z.data(), th.data(), u.data(), z.data(), zb.data(), thb.data(), ub.data(), s);
  for (double v : dz) std::printf("%.17g\n", v);
  for (double v : thb) std::printf("%.17g\n", v);
  std::free(s);
  return 0;
}
)";
  prog.close();
  const std::string exe = (dir / "prog").string();
  const std::string build =
      fmt::format("c++ -std=c++17 -O1 -I{} -I{} {} {} -o {} 2>&1", PLASTIC_SOURCE_DIR, dir.string(),
                  (dir / "main.cpp").string(), (dir / "model.o").string(), exe);
  std::string log = run_capture(build);
  INFO(build << "\n" << log);
  REQUIRE(fs::exists(exe));
  std::istringstream out(run_capture(exe));

  // The JIT's table and numbers on the same inputs.
  CompiledModel cm = compile_model(fns, loops::ElemType::F64);
  const plastic_model& m = cm.table();
  REQUIRE(rt::validate_model(m, PLASTIC_F64).ok());
  std::string name, param0;
  int dtype = 0, lanes = 0, entries = 0;
  long n_state = 0, n_params = 0, n_input = 0;
  out >> name >> dtype >> lanes >> n_state >> n_params >> n_input >> entries >> param0;
  CHECK(name == m.name);
  CHECK(dtype == m.dtype);
  CHECK(lanes == m.lanes);
  CHECK(n_state == m.n_state);
  CHECK(n_params == m.n_params);
  CHECK(n_input == m.n_input);
  CHECK(entries == m.n_param_entries);
  CHECK(param0 == m.params[0].name);
  const long L = m.lanes, n = m.n_state, P = m.n_params, mi = m.n_input;
  std::vector<double> z(n * L), th(P), u(4 * mi * L), dz(n * L), zb(n * L, 0.0), thb(P, 0.0),
      ub(4 * mi * L, 0.0);
  for (long i = 0; i < n * L; ++i)
    z[i] = input_value(i, 0.37);
  for (long i = 0; i < P; ++i)
    th[i] = 0.2 * input_value(i, 0.11);
  for (long i = 0; i < 4 * mi * L; ++i)
    u[i] = input_value(i, 0.05);
  std::vector<char> scratch(std::max(m.scratch.step_vjp, m.scratch.field) + 64);
  void* s =
      reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) & ~uintptr_t(63));
  m.kernels.field(m.ctx, 0.5, z.data(), th.data(), u.data(), dz.data(), s);
  m.kernels.step_vjp(m.ctx, 0.5, 1.0, z.data(), th.data(), u.data(), z.data(), zb.data(),
                     thb.data(), ub.data(), s);
  // JIT and AOT run the same lowering and pipeline for the same target: the
  // numbers agree to the last bit (printed with 17 digits, read back exactly).
  size_t mismatches = 0;
  for (double want : dz) {
    double got = NAN;
    out >> got;
    mismatches += got != want;
  }
  for (double want : thb) {
    double got = NAN;
    out >> got;
    mismatches += got != want;
  }
  CHECK(mismatches == 0);
  fs::remove_all(dir);
}
