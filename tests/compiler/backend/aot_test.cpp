// AOT round trip: emit an object file and its C header, compile a small C++
// program against them with the system compiler, run it, and check that it
// prints exactly the JIT's numbers (same lowering, pipeline and target), and
// the interpreter's within the usual tolerance.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/backend/llvm/aot.h"
#include "compiler/backend/llvm/jit.h"
#include "compiler/loops/loop_interpreter.h"
#include "tests/compiler/backend/jit_support.h"
#include "tests/compiler/backend/loop_programs.h"

using namespace plastic::loops;
using namespace plastic::backend;
using namespace plastic::backend::test;
namespace fs = std::filesystem;

namespace {

// The same deterministic inputs on both sides (identical libm sin).
constexpr const char* kInputFormula = "std::sin(0.37 * double(i) + 1.3 * double(buffer)) * 0.8";
double input(int buffer, int64_t i) {
  return std::sin(0.37 * double(i) + 1.3 * double(buffer)) * 0.8;
}

Function renamed(Function f, std::string name) {
  f.name = std::move(name);
  return f;
}

// C++ that fills each buffer parameter of `fn` with input(), calls it, and
// prints the writable buffers in hex-float.
std::string driver_for(const Function& fn) {
  const char* ctype = fn.type == ElemType::F32 ? "float" : "double";
  std::string s = "  {\n";
  std::string call;
  for (size_t p = 0; p < fn.params.size(); ++p) {
    const Param& prm = fn.params[p];
    if (!call.empty()) call += ", ";
    switch (prm.kind) {
    case ParamKind::Opaque:
      call += "nullptr";
      break;
    case ParamKind::Scalar:
      call += "0.25";
      break;
    case ParamKind::Scratch:
      s +=
          fmt::format("    alignas(64) static unsigned char scratch[{} + 64];\n", fn.scratch_bytes);
      call += "scratch";
      break;
    case ParamKind::Buffer: {
      const int64_t n = fn.elements(fn.buffers[prm.buffer]);
      s += fmt::format("    static std::vector<{}> b{}({});\n", ctype, p, n);
      s +=
          fmt::format("    for (long i = 0; i < {}; ++i) {{ int buffer = {}; b{}[i] = {}({}); }}\n",
                      n, p, p, ctype, kInputFormula);
      call += fmt::format("b{}.data()", p);
      break;
    }
    }
  }
  s += fmt::format("    {}({});\n", fn.name, call);
  for (size_t p = 0; p < fn.params.size(); ++p) {
    const Param& prm = fn.params[p];
    if (prm.kind != ParamKind::Buffer || fn.buffers[prm.buffer].readonly) continue;
    s += fmt::format("    for (double v : b{}) std::printf(\"%a\\n\", v);\n", p);
  }
  return s + "  }\n";
}

Frame input_frame(const Function& fn) {
  Frame f = make_frame(fn, {{"t", {0, 0, 0.25}}, {"beta", {0, 0, 0.25}}}, 0);
  for (size_t p = 0; p < fn.params.size(); ++p)
    if (fn.params[p].kind == ParamKind::Buffer)
      for (int64_t i = 0; i < f.buffers[p].size(); ++i)
        f.buffers[p].set(i, input(static_cast<int>(p), i));
  return f;
}

std::vector<double> outputs(const Function& fn, const Frame& f) {
  std::vector<double> v;
  for (size_t p = 0; p < fn.params.size(); ++p)
    if (fn.params[p].kind == ParamKind::Buffer && !fn.buffers[fn.params[p].buffer].readonly)
      for (int64_t i = 0; i < f.buffers[p].size(); ++i)
        v.push_back(f.buffers[p].get(i));
  return v;
}

} // namespace

TEST_CASE("AOT object linked into a C++ program reproduces the JIT", "[backend][aot]") {
  const Module mod{"aot_demo",
                   {renamed(matvec(ElemType::F64, 0, 4, 20), "aot_matvec"),
                    renamed(delta_field(ElemType::F32, 0, 21, 4, 20), "aot_field"),
                    renamed(elementwise_chain(ElemType::F64, 0, 37), "aot_chain"),
                    renamed(delta_update(ElemType::F32, 0, 2, 8), "aot_delta")}};
  const fs::path dir = fs::path(PLASTIC_BINARY_DIR) / "codegen_aot";
  fs::create_directories(dir);
  const CompileStats st =
      emit_object(mod, (dir / "kernels.o").string(), (dir / "kernels.h").string());
  fmt::print(
      "\nAOT object for {} kernels: lower {:.1f} ms, O3 {:.1f} ms, codegen {:.1f} ms, {} bytes\n",
      mod.functions.size(), st.lower_ms, st.optimize_ms, st.codegen_ms,
      fs::file_size(dir / "kernels.o"));

  std::string main_cpp = "#include <cmath>\n#include <cstdio>\n#include <vector>\n#include "
                         "\"kernels.h\"\nint main() {\n";
  for (const Function& fn : mod.functions)
    main_cpp += driver_for(fn);
  main_cpp += "  return 0;\n}\n";
  std::ofstream(dir / "main.cpp") << main_cpp;

  const std::string compile = fmt::format(
      "c++ -std=c++17 -O1 -o '{0}/prog' '{0}/main.cpp' '{0}/kernels.o' -lm 2> '{0}/cc.log'",
      dir.string());
  REQUIRE(std::system(compile.c_str()) == 0);
  REQUIRE(std::system(fmt::format("'{0}/prog' > '{0}/out.txt'", dir.string()).c_str()) == 0);

  std::vector<double> aot;
  {
    std::ifstream in(dir / "out.txt");
    std::string line;
    while (std::getline(in, line))
      aot.push_back(std::strtod(line.c_str(), nullptr));
  }

  Jit jit; // default options: the same as emit_object's
  JitModule jm = jit.add(mod);
  std::vector<double> jit_out, ref_out;
  for (const Function& fn : mod.functions) {
    Frame f = input_frame(fn), ref = f.clone();
    // Call through the C signature, as the AOT program does.
    Args a = f.args();
    if (fn.name == "aot_matvec") { // ctx, W, k, y, scratch
      jm.get<void(const void*, const void*, const void*, void*, void*)>(fn.name)(
          nullptr, a.pointer_at(1), a.pointer_at(2), a.pointer_at(3), a.pointer_at(4));
    } else if (fn.name == "aot_field") { // ctx, t, z, theta, u, dz, scratch
      jm.get<void(const void*, double, const void*, const void*, const void*, void*, void*)>(
          fn.name)(nullptr, a.scalar_at(1), a.pointer_at(2), a.pointer_at(3), a.pointer_at(4),
                   a.pointer_at(5), a.pointer_at(6));
    } else if (fn.name == "aot_delta") { // ctx, beta, W, k, v, scratch
      jm.get<void(const void*, double, void*, const void*, const void*, void*)>(fn.name)(
          nullptr, a.scalar_at(1), a.pointer_at(2), a.pointer_at(3), a.pointer_at(4),
          a.pointer_at(5));
    } else { // aot_chain: ctx, t, x, theta, y
      jm.get<void(const void*, double, const void*, const void*, void*)>(fn.name)(
          nullptr, a.scalar_at(1), a.pointer_at(2), a.pointer_at(3), a.pointer_at(4));
    }
    interpret(fn, ref.args());
    const Comparison c = compare(fn, f, ref);
    INFO(fn.name << ": " << c.where);
    CHECK(c.max_rel <= (fn.type == ElemType::F64 ? 1e-12 : 1e-5));
    for (double v : outputs(fn, f))
      jit_out.push_back(v);
  }
  REQUIRE(aot.size() == jit_out.size());
  size_t differ = 0;
  for (size_t i = 0; i < aot.size(); ++i)
    if (!(aot[i] == jit_out[i] || (std::isnan(aot[i]) && std::isnan(jit_out[i])))) ++differ;
  fmt::print("AOT program printed {} numbers; {} differ from the JIT's\n", aot.size(), differ);
  CHECK(differ == 0);
}

TEST_CASE("AOT assembly shows full-width SIMD and no libm calls for polynomial math",
          "[backend][aot]") {
  const Module mod{"asm_demo", {softmax(ElemType::F32, 0, 16)}};
  const std::string poly = emit_assembly(mod);
  CHECK(poly.find("ymm") != std::string::npos); // 8 x f32 = 256-bit registers
  CHECK(poly.find("expf") == std::string::npos);
  CompileOptions libm;
  libm.math = MathMode::Libm;
  const std::string scalar = emit_assembly(mod, libm);
  size_t calls = 0;
  for (size_t at = scalar.find("expf"); at != std::string::npos; at = scalar.find("expf", at + 1))
    ++calls;
  fmt::print("\nsoftmax(16) f32 with llvm.exp: {} references to expf in the assembly (scalarised); "
             "polynomial: 0\n",
             calls);
  CHECK(calls > 0);
  CHECK_THAT(emit_llvm_ir(mod, {}, false), Catch::Contains("define void @softmax("));
}
