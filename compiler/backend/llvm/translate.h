// Loop IR -> LLVM IR.
//
// Internal to the LLVM backend. Each loop function becomes one external LLVM
// function with its C signature: varying values are <L x T> vectors, uniform
// values scalars splatted where they meet a varying operand; loops are real
// LLVM loops over i64 induction variables (O3 unrolls the small ones);
// variables are allocas that mem2reg turns into SSA; pointer parameters get
// noalias / nocapture / readonly / dereferenceable from their declarations,
// the scratch pointer align 64. Transcendentals come from vector_math.h.
//
// Internal header of compiler/backend/llvm/: nothing outside that folder includes it.
#pragma once

#include <memory>

#include "compiler/backend/llvm/options.h"
#include "compiler/backend/llvm/target.h"
#include "compiler/loops/loop_ir.h"

namespace llvm {
class DataLayout;
class LLVMContext;
class Module;
} // namespace llvm

namespace plastic::backend::detail {

/// Lowers a verified module into a new LLVM module of `ctx` for the target
/// (triple, data layout, per-function target-cpu / target-features). Runs
/// LLVM's verifier; a failure is an InternalError.
std::unique_ptr<llvm::Module> lower_module(const loops::Module& module, llvm::LLVMContext& ctx,
                                           const TargetSpec& target, const llvm::DataLayout& layout,
                                           const CompileOptions& options);

} // namespace plastic::backend::detail
