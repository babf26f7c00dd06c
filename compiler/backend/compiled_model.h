// A model compiled to native code: the JIT module of its kernels and the
// plastic_model table (runtime/abi.h) the runtime drives it through, or an
// AOT object exporting the same table.
//
//   auto fns = build_model_functions("delta.ode", {}, status);
//   CompiledModel cm = compile_model(*fns, loops::ElemType::F32);
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

#include <future>
#include <map>
#include <memory>
#include <string>

#include "compiler/abi/kernels.h"
#include "compiler/abi/layout.h"
#include "compiler/backend/llvm/jit.h"
#include "compiler/backend/llvm/options.h"
#include "compiler/loops/args.h"
#include "compiler/loops/loop_ir.h"
#include "compiler/model/model_functions.h"
#include "runtime/abi.h"

namespace plastic::backend {

/// Which kernels compile_model loads before it returns. Deferred kernels
/// compile on a low-priority thread; their table slots stay null until
/// wait_for_rest().
enum class LoadOrder {
  AllAtOnce,      ///< every kernel: the table is complete when compile_model returns
  PredictFirst,   ///< the REPL's: defers what only training calls (the VJPs, the
                  ///< adjoint field) and the fused step kernels, which predicting
                  ///< can do without by stepping through the field kernel: about
                  ///< nine tenths of a model's compile time
  FirstStepFirst, ///< the training commands': defers the unfused kernels (field,
                  ///< field_vjp, adjoint_field) where the fused step kernels
                  ///< that a step calls instead are there: a fifth to a third
                  ///< of the compile time off the wait for the first step
};

class CompiledModel {
public:
  CompiledModel();
  ~CompiledModel();
  CompiledModel(CompiledModel&&) noexcept;
  CompiledModel& operator=(CompiledModel&&) noexcept;

  /// The ABI table; its pointers stay valid while this object lives.
  const plastic_model& table() const;
  const abi::ModelLayout& layout() const;
  /// The loop IR of every kernel (symbols carry a unique prefix).
  const abi::ModelKernels& kernels() const;
  /// The `<kernel>__packed` entry of a kernel (one 64-bit slot per C
  /// parameter, loops/args.h) when compiled with packed_entries; null when
  /// the model has no such kernel.
  loops::PackedKernel packed(abi::KernelId id) const;
  /// Whether the table holds every kernel: always, except after a LoadOrder
  /// other than AllAtOnce until wait_for_rest().
  bool all_loaded() const;
  /// Waits for the deferred kernels compiling in the background and puts
  /// them into the table; rethrows what their compilation threw. Returns at
  /// once when they are in already.
  void wait_for_rest();
  /// Time spent building the loop IR (tensor IR -> loop IR), ms.
  double assemble_ms() const;
  /// Time spent in LLVM (lowering, O3, codegen), ms; for the C++ backend,
  /// emitting the source, Clang (parsing and O3) and codegen.
  const backend::CompileStats& llvm_stats() const;

  /// A model from its layout, kernels and the loaded module holding them
  /// (each kernel under its loop-IR name): fills the table. What every
  /// backend's compile function ends with.
  static CompiledModel assemble(abi::ModelLayout layout, abi::ModelKernels kernels,
                                JitModule module, double assemble_ms);

private:
  friend CompiledModel compile_model(const model::ModelFunctions&, loops::ElemType, int,
                                     const backend::CompileOptions&, LoadOrder, abi::GradientUse);
  struct State;
  std::unique_ptr<State> state_;
};

/// Builds every kernel of `fns` for `type` with `lanes` samples per tile
/// (0 = one 256-bit vector: 8 x f32, 4 x f64; backend::target_lanes gives the
/// widest register of the target, e.g. 16 x f32 with AVX-512) and JIT-compiles them. Throws
/// abi::LayoutError when the model needs something the ABI cannot express,
/// plastic::InternalError on a compiler bug. With a LoadOrder other than
/// AllAtOnce it returns once the kernels that order puts first are loaded. `use`
/// leaves out the gradient kernels the caller will not call (their table
/// slots stay null): `plastic eval` compiles no VJP, an adjoint run no
/// step_vjp.
CompiledModel compile_model(const model::ModelFunctions& fns, loops::ElemType type, int lanes = 0,
                            const backend::CompileOptions& options = {},
                            LoadOrder order = LoadOrder::AllAtOnce,
                            abi::GradientUse use = abi::GradientUse::All);

/// The process's JIT for `options` (one per distinct set of options, made
/// on first use); every backend loads its modules into it.
backend::Jit& shared_jit(const backend::CompileOptions& options);

/// The JIT's symbol prefix for model `name`: "<name>_", the same at every
/// compilation (each JIT module links in a library of its own, so two
/// compilations of one model coexist, and the kernel cache can serve both).
std::string jit_prefix(const std::string& name);

/// The loop IR of every kernel without compiling it (`plastic emit --loops`,
/// --llvm); kernel symbols are "<prefix><kernel>".
abi::ModelKernels assemble_kernels(const model::ModelFunctions& fns, const abi::ModelLayout& layout,
                                   loops::ElemType type, int lanes, const std::string& prefix);

/// Writes an object file exporting the model's kernels (as "<model>_<kernel>")
/// and PLASTIC_MODEL_ENTRY_SYMBOL, and a C header declaring them.
/// `strings` (symbol -> text) are exported too, as NUL-terminated char
/// arrays: metadata a model binary reads without a change of the ABI table
/// (runtime/app/model_info.h).
backend::CompileStats emit_model_object(const model::ModelFunctions& fns, loops::ElemType type,
                                        const std::string& object_path,
                                        const std::string& header_path, int lanes = 0,
                                        const backend::CompileOptions& options = {},
                                        const std::map<std::string, std::string>& strings = {});

} // namespace plastic::backend
