// Target selection and the optimisation pipeline, shared by JIT and AOT.
//
// Internal to the LLVM backend. The target defaults to the host: triple from
// sys::getProcessTriple, CPU from sys::getHostCPUName and the feature string
// from sys::getHostCPUFeatures, so kernels use AVX2/FMA (or AVX-512) where
// the machine has them. JIT and AOT resolve the same options to the same
// target, which is what makes their numbers bit-identical.
//
// Internal header of compiler/backend/llvm/: nothing outside that folder includes it.
#pragma once

#include <memory>
#include <string>

#include <llvm/Support/CodeGen.h>

#include "compiler/backend/llvm/options.h"

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace plastic::backend::detail {

using backend::TargetSpec;

/// Registers the native target with LLVM (once per process).
void initialize_llvm();

/// The triple, CPU and feature string the options resolve to.
TargetSpec resolve_target(const CompileOptions& options);

/// Bytes of the target's widest vector register: 64 with AVX-512, 32 with
/// AVX, 16 otherwise. (A named cpu without a feature string is asked what it
/// has, which builds a TargetMachine: call once per module, not per kernel.)
int vector_register_bytes(const TargetSpec& spec);

/// A TargetMachine for `spec` at -O`opt_level` codegen, position-independent
/// (objects link into PIE executables; the JIT accepts PIC too). Throws
/// CodegenError when LLVM has no backend for the triple.
std::unique_ptr<llvm::TargetMachine> make_target_machine(const TargetSpec& spec, int opt_level);

/// Runs the new pass manager's default per-module pipeline at `opt_level`
/// (O3 by default) with the target's cost model.
void optimize(llvm::Module& module, llvm::TargetMachine& tm, int opt_level, bool unroll_loops);

/// Instruction selection and register allocation: `module` as an object
/// file or assembly text for `tm`. CodegenError when the target cannot.
std::string machine_code(llvm::Module& module, llvm::TargetMachine& tm, llvm::CodeGenFileType type);

} // namespace plastic::backend::detail
