// A model compiled to native code: the JIT module of its kernels and the
// plastic_model table (runtime/abi.h) the runtime drives it through, or an
// AOT object exporting the same table.
//
//   auto fns = build_model_functions("delta.ode", {}, status);
//   CompiledModel cm = compile_model(*fns, codegen::ElemType::F32);
//   const plastic_model& m = cm.table();      // valid while cm lives
//
// Dropping a CompiledModel frees its machine code (each model lives under its
// own ORC resource tracker), so a REPL can recompile indefinitely with flat
// memory. Every JIT compilation gets unique symbol names, so several
// CompiledModels of the same model coexist.
//
// AOT: emit_model_object writes an object whose exported `plastic_model_v1`
// (PLASTIC_MODEL_ENTRY_SYMBOL) returns a table that lives in the object's
// read-only data. The table is emitted as LLVM constants in the same module
// as the kernels, not as generated C compiled by the system compiler: one
// object, no toolchain or include paths needed at build time, the same
// target and code path as the kernels, and the LLVM struct types are checked
// field by field against the compiler's own abi.h offsets before emission.
#pragma once

#include <memory>
#include <string>

#include "compiler/codegen/args.h"
#include "compiler/codegen/llvm/options.h"
#include "compiler/codegen/loop_ir.h"
#include "compiler/model/assemble/kernels.h"
#include "compiler/model/assemble/layout.h"
#include "compiler/model/model_functions.h"
#include "runtime/abi.h"

namespace plastic::model {

class CompiledModel {
public:
  CompiledModel();
  ~CompiledModel();
  CompiledModel(CompiledModel&&) noexcept;
  CompiledModel& operator=(CompiledModel&&) noexcept;

  /// The ABI table; its pointers stay valid while this object lives.
  const plastic_model& table() const;
  const ModelLayout& layout() const;
  /// The loop IR of every kernel (symbols carry a unique prefix).
  const ModelKernels& kernels() const;
  /// The `<kernel>__packed` entry of a kernel (one 64-bit slot per C
  /// parameter, codegen/args.h) when compiled with packed_entries; null when
  /// the model has no such kernel.
  codegen::PackedKernel packed(KernelId id) const;
  /// Time spent building the loop IR (tensor IR -> loop IR), ms.
  double assemble_ms() const;
  /// Time spent in LLVM (lowering, O3, codegen), ms.
  const codegen::CompileStats& llvm_stats() const;

private:
  friend CompiledModel compile_model(const ModelFunctions&, codegen::ElemType, int,
                                     const codegen::CompileOptions&);
  struct State;
  std::unique_ptr<State> state_;
};

/// Builds every kernel of `fns` for `type` with `lanes` samples per tile
/// (0 = one 256-bit vector: 8 x f32, 4 x f64; codegen::target_lanes gives the
/// widest register of the target, e.g. 16 x f32 with AVX-512) and JIT-compiles them. Throws
/// LayoutError when the model needs something the ABI cannot express,
/// codegen::InternalError on a compiler bug.
CompiledModel compile_model(const ModelFunctions& fns, codegen::ElemType type, int lanes = 0,
                            const codegen::CompileOptions& options = {});

/// The loop IR of every kernel without compiling it (`plastic emit --loops`,
/// --llvm); kernel symbols are "<prefix><kernel>".
ModelKernels assemble_kernels(const ModelFunctions& fns, const ModelLayout& layout, codegen::ElemType type,
                              int lanes, const std::string& prefix);

/// Writes an object file exporting the model's kernels (as "<model>_<kernel>")
/// and PLASTIC_MODEL_ENTRY_SYMBOL, and a C header declaring them.
codegen::CompileStats emit_model_object(const ModelFunctions& fns, codegen::ElemType type,
                                        const std::string& object_path, const std::string& header_path,
                                        int lanes = 0, const codegen::CompileOptions& options = {});

}  // namespace plastic::model
