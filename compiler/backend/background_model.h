// A model whose kernels compile on other threads while its caller goes on:
// the commands that read and prepare data (train, eval, predict,
// bench-train) start doing so at once instead of waiting for LLVM.
//
//   BackgroundModel bm(fns, type, lanes, use, [&] { return compile_with(...); });
//   const plastic_model& m = bm.table();   // complete at once: names, shapes,
//                                          // slots; every kernel the model has
//   ... read the data, initialise the parameters ...
//   const CompiledModel& cm = bm.wait();   // rethrows what compiling threw
//
// The table is the compiled model's except for its kernel slots, which hold
// small functions that wait for the compilation and then call the compiled
// kernel; a slot is non-null exactly where the compiled table's is (the
// same loop IR decides both), so what the runtime concludes from the table
// before the kernels arrive (is there a jump? a fused step VJP?) is what it
// would conclude after. The results are those of the compiled kernels, bit
// for bit: nothing runs another way while waiting. Callers wait() before
// their first kernel call, so a failed compilation is reported as an error;
// a kernel called after a failed compilation aborts with the reason (a bug:
// some path called a kernel without waiting).
#pragma once

#include <functional>
#include <memory>

#include "compiler/abi/gradient_use.h"
#include "compiler/backend/compiled_model.h"
#include "compiler/loops/elem_type.h"
#include "compiler/model/model_functions.h"
#include "runtime/abi.h"

namespace plastic::backend {

class BackgroundModel {
public:
  /// Builds the table of `fns` as `compile` will (`type`, `lanes`, the kernels
  /// `use` keeps) and starts `compile` on a thread of its own.
  BackgroundModel(const model::ModelFunctions& fns, loops::ElemType type, int lanes,
                  abi::GradientUse use, std::function<CompiledModel()> compile);
  /// Waits for the compilation (its result or failure is dropped).
  ~BackgroundModel();
  BackgroundModel(const BackgroundModel&) = delete;
  BackgroundModel& operator=(const BackgroundModel&) = delete;

  /// The table, valid while this object lives; its kernels wait for the compilation.
  const plastic_model& table() const;
  /// Waits for the compilation and returns the compiled model (its stats,
  /// its own table); rethrows what `compile` threw, at every call.
  const CompiledModel& wait();
  /// Seconds the compilation took on its thread (0 before wait() returns).
  double seconds() const;

private:
  struct State;
  std::unique_ptr<State> state_;
};

} // namespace plastic::backend
