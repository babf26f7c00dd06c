// Target selection and the optimisation pipeline (target.h).
#include "compiler/backend/llvm/target.h"

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Host.h>

#include "compiler/loops/error.h"

namespace plastic::backend {

using namespace ::plastic::loops;

namespace detail {

void initialize_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

TargetSpec resolve_target(const CompileOptions& options) {
  TargetSpec spec;
  spec.triple = llvm::sys::getProcessTriple();
  spec.cpu = options.cpu.empty() ? llvm::sys::getHostCPUName().str() : options.cpu;
  if (!options.features.empty()) {
    spec.features = options.features;
  } else if (options.cpu.empty()) {
    // Sorted so the string (and thus the generated code) is reproducible.
    std::vector<std::string> feats;
    for (const auto& f : llvm::sys::getHostCPUFeatures())
      feats.push_back((f.second ? "+" : "-") + f.first().str());
    std::sort(feats.begin(), feats.end());
    for (const auto& f : feats)
      spec.features += (spec.features.empty() ? "" : ",") + f;
  }
  return spec;
}

std::unique_ptr<llvm::TargetMachine> make_target_machine(const TargetSpec& spec, int opt_level) {
  initialize_llvm();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(spec.triple, error);
  if (!target)
    throw CodegenError(fmt::format("no LLVM backend for target '{}': {}", spec.triple, error));
  const llvm::CodeGenOptLevel level = opt_level <= 0   ? llvm::CodeGenOptLevel::None
                                      : opt_level == 1 ? llvm::CodeGenOptLevel::Less
                                      : opt_level == 2 ? llvm::CodeGenOptLevel::Default
                                                       : llvm::CodeGenOptLevel::Aggressive;
  llvm::TargetOptions to;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      spec.triple, spec.cpu, spec.features, to, llvm::Reloc::PIC_, std::nullopt, level));
  if (!tm)
    throw CodegenError(
        fmt::format("cannot create a target machine for '{}' (cpu '{}')", spec.triple, spec.cpu));
  return tm;
}

std::string machine_code(llvm::Module& module, llvm::TargetMachine& tm,
                         llvm::CodeGenFileType type) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, type))
    throw CodegenError(
        fmt::format("target '{}' cannot emit {}", tm.getTargetTriple().str(),
                    type == llvm::CodeGenFileType::ObjectFile ? "object files" : "assembly"));
  pm.run(module);
  return std::string(buffer.data(), buffer.size());
}

void optimize(llvm::Module& module, llvm::TargetMachine& tm, int opt_level, bool unroll_loops) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  // LoopUnrolling = false also keeps LoopFullUnrollPass to loops that ask
  // for it (PassBuilderPipelines: OnlyWhenForced = !LoopUnrolling).
  llvm::PipelineTuningOptions pto;
  pto.LoopUnrolling = unroll_loops;
  llvm::PassBuilder pb(&tm, pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  const llvm::OptimizationLevel level = opt_level <= 0   ? llvm::OptimizationLevel::O0
                                        : opt_level == 1 ? llvm::OptimizationLevel::O1
                                        : opt_level == 2 ? llvm::OptimizationLevel::O2
                                                         : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm = level == llvm::OptimizationLevel::O0
                                    ? pb.buildO0DefaultPipeline(level)
                                    : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(module, mam);
}

int vector_register_bytes(const TargetSpec& spec) {
  auto has = [&](const char* feature) {
    return ("," + spec.features + ",").find(std::string(",+") + feature + ",") != std::string::npos;
  };
  if (spec.features.empty()) {
    // A named cpu with its default features ("x86-64-v4", "znver4"): ask
    // LLVM what that cpu has, so AOT builds for it get its widest tiles.
    std::unique_ptr<llvm::TargetMachine> tm = make_target_machine(spec, 0);
    const llvm::MCSubtargetInfo* sti = tm->getMCSubtargetInfo();
    return sti->checkFeatures("+avx512f") ? 64 : sti->checkFeatures("+avx") ? 32 : 16;
  }
  return has("avx512f") ? 64 : has("avx") ? 32 : 16;
}

} // namespace detail

int target_lanes(ElemType type, const CompileOptions& options) {
  return detail::vector_register_bytes(detail::resolve_target(options)) / elem_size(type);
}

TargetSpec target_spec(const CompileOptions& options) {
  return detail::resolve_target(options);
}

std::string describe_target(const CompileOptions& options) {
  const detail::TargetSpec spec = detail::resolve_target(options);
  return fmt::format("{}, cpu {}, features {}", spec.triple, spec.cpu,
                     spec.features.empty() ? "(cpu defaults)" : spec.features);
}

std::vector<std::string> known_cpus() {
  detail::TargetSpec spec;
  spec.triple = llvm::sys::getProcessTriple();
  spec.cpu = "generic";
  std::unique_ptr<llvm::TargetMachine> tm = detail::make_target_machine(spec, 0);
  std::vector<std::string> names;
  for (const llvm::SubtargetSubTypeKV& kv : tm->getMCSubtargetInfo()->getAllProcessorDescriptions())
    names.emplace_back(kv.Key);
  std::sort(names.begin(), names.end());
  return names;
}

std::string describe(const CompileStats& stats) {
  std::string out = fmt::format("lower {:.0f} ms, optimise {:.0f} ms, codegen {:.0f} ms",
                                stats.lower_ms, stats.optimize_ms, stats.codegen_ms);
  if (stats.threads > 1)
    out += fmt::format(" on {} threads (wall {:.0f} ms)", stats.threads, stats.wall_ms);
  if (stats.kernels > 0)
    out += fmt::format("; {} of {} kernels from the cache", stats.cached, stats.kernels);
  return out;
}

} // namespace plastic::backend
