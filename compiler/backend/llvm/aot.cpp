// Ahead-of-time compilation: objects, assembly, LLVM IR text (aot.h).
#include "compiler/backend/llvm/aot.h"

#include <chrono>
#include <fstream>

#include <fmt/format.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "compiler/backend/llvm/target.h"
#include "compiler/backend/llvm/translate.h"
#include "compiler/loops/c_header.h"
#include "compiler/loops/error.h"

namespace plastic::backend {

using namespace ::plastic::loops;

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Lowers (and optionally optimises) in `ctx`, then runs `emit` on the result.
template <class Emit>
std::string build(const Module& module, const CompileOptions& options, bool optimized,
                  CompileStats* stats, Emit&& emit) {
  const detail::TargetSpec spec = detail::resolve_target(options);
  std::unique_ptr<llvm::TargetMachine> tm = detail::make_target_machine(spec, options.opt_level);
  llvm::LLVMContext ctx;
  CompileStats local;
  auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<llvm::Module> mod =
      detail::lower_module(module, ctx, spec, tm->createDataLayout(), options);
  local.lower_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  if (optimized) detail::optimize(*mod, *tm, options.opt_level, options.unroll_loops);
  local.optimize_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  std::string out = emit(*mod, *tm);
  local.codegen_ms = ms_since(t0);
  if (stats) *stats = local;
  return out;
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw CodegenError(fmt::format("cannot open '{}' for writing", path));
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw CodegenError(fmt::format("cannot write '{}'", path));
}

} // namespace

std::string compile_object(const Module& module, const CompileOptions& options,
                           CompileStats* stats) {
  return build(module, options, true, stats, [](llvm::Module& mod, llvm::TargetMachine& tm) {
    return detail::machine_code(mod, tm, llvm::CodeGenFileType::ObjectFile);
  });
}

CompileStats emit_object(const Module& module, const std::string& object_path,
                         const std::string& header_path, const CompileOptions& options) {
  CompileStats stats;
  write_file(object_path, compile_object(module, options, &stats));
  if (!header_path.empty()) write_file(header_path, c_header(module, {}, options.packed_entries));
  return stats;
}

std::string emit_assembly(const Module& module, const CompileOptions& options) {
  return build(module, options, true, nullptr, [](llvm::Module& mod, llvm::TargetMachine& tm) {
    return detail::machine_code(mod, tm, llvm::CodeGenFileType::AssemblyFile);
  });
}

std::string emit_llvm_ir(const Module& module, const CompileOptions& options, bool optimized) {
  return build(module, options, optimized, nullptr, [](llvm::Module& mod, llvm::TargetMachine&) {
    std::string text;
    llvm::raw_string_ostream os(text);
    mod.print(os, nullptr);
    return os.str();
  });
}

} // namespace plastic::backend
