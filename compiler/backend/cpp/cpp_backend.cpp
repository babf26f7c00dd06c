// The C++ backend's entry points (cpp_backend.h).
#include "compiler/backend/cpp/cpp_backend.h"

#include <chrono>
#include <fstream>

#include <fmt/format.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "compiler/backend/cpp/clang_compile.h"
#include "compiler/backend/cpp/emit_cpp.h"
#include "compiler/backend/cpp/format.h"
#include "compiler/loops/error.h"

namespace plastic::backend::cpp {

using namespace ::plastic::abi;

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw loops::CodegenError(fmt::format("cannot open '{}' for writing", path));
  f << text;
  if (!f) throw loops::CodegenError(fmt::format("cannot write '{}'", path));
}

} // namespace

GeneratedCpp generate(const model::ModelFunctions& fns, loops::ElemType type, int lanes,
                      const std::string& source_name, const std::string& source_text) {
  const ModelLayout layout = compute_layout(fns);
  const ModelKernels kernels = build_kernels(fns, layout, type, lanes, layout.name + "_");
  CppEmitOptions options;
  options.source_name = source_name;
  options.source_text = source_text;
  GeneratedCpp out;
  out.source = format_cpp(emit_cpp(layout, kernels, options), layout.name + ".cpp");
  out.header = format_cpp(emit_cpp_header(kernels), layout.name + ".h");
  return out;
}

CompiledModel compile_model(const model::ModelFunctions& fns, loops::ElemType type, int lanes,
                            const CompileOptions& options) {
  auto t0 = std::chrono::steady_clock::now();
  ModelLayout layout = compute_layout(fns);
  ModelKernels kernels = build_kernels(fns, layout, type, lanes, jit_prefix(layout.name));
  const double assemble_ms = ms_since(t0);

  CompileStats stats;
  t0 = std::chrono::steady_clock::now();
  CppEmitOptions emit;
  emit.table = false; // the JIT's table points at the JIT's addresses
  emit.packed_entries = options.packed_entries;
  const std::string source = emit_cpp(layout, kernels, emit);
  stats.lower_ms = ms_since(t0);

  std::vector<std::string> symbols;
  for (const loops::Function& f : kernels.module.functions) {
    symbols.push_back(f.name);
    if (options.packed_entries) symbols.push_back(f.name + "__packed");
  }
  stats.kernels = static_cast<int>(kernels.module.functions.size());
  ForeignSource foreign;
  foreign.name = layout.name + ".cpp";
  foreign.text = source;
  foreign.tool = detail::compiler_identity(options);
  foreign.make = [&] { return detail::compile_to_module(source, foreign.name, options); };
  JitModule module = shared_jit(options).add(foreign, symbols, stats);
  return CompiledModel::assemble(std::move(layout), std::move(kernels), std::move(module),
                                 assemble_ms);
}

CompileStats emit_model_object(const model::ModelFunctions& fns, loops::ElemType type,
                               const std::string& object_path, const std::string& header_path,
                               int lanes, const CompileOptions& options,
                               const std::map<std::string, std::string>& strings) {
  const ModelLayout layout = compute_layout(fns);
  const ModelKernels kernels = build_kernels(fns, layout, type, lanes, layout.name + "_");
  CompileStats stats;
  auto t0 = std::chrono::steady_clock::now();
  CppEmitOptions emit;
  emit.strings = strings;
  const std::string source = emit_cpp(layout, kernels, emit);
  stats.lower_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  detail::compile_to_object(source, layout.name + ".cpp", object_path, options);
  stats.optimize_ms = ms_since(t0); // Clang's front end, O3 and codegen in one
  if (!header_path.empty()) write_file(header_path, emit_cpp_header(kernels));
  return stats;
}

} // namespace plastic::backend::cpp
