// A model whose kernels compile on other threads while its caller goes on:
// the commands that read and prepare data (train, eval, predict,
// bench-train) start doing so at once instead of waiting for LLVM.
//
//   BackgroundModel bm(fns, type, lanes, use, [&] { return compile_with(...); });
//   const plastic_model& m = bm.table();   // complete at once: names, shapes,
//                                          // slots; every kernel the model has
//   ... read the data, initialise the parameters ...
//   const CompileStats& s = bm.wait();     // rethrows what compiling threw
//
// The table is the compiled model's except for its kernel slots, which hold
// small functions that wait for their kernel and then call it; a slot is
// non-null exactly where the compiled table's is (the same loop IR decides
// both), so what the runtime concludes from the table before the kernels
// arrive (is there a jump? a fused step VJP?) is what it would conclude
// after. The results are those of the compiled kernels, bit for bit:
// nothing runs another way while waiting.
//
// When `compile` returns a model with kernels deferred (a LoadOrder other
// than AllAtOnce, compiled_model.h), the thread goes on to load them: each
// waiting slot waits for its own kernel only, and wait() returns once the
// first load is in. Callers wait() before their first kernel call, so a
// failed first load is reported as an error; a kernel called after its
// compilation failed aborts with the reason (a bug: some path called a
// kernel without waiting, or LLVM failed on a deferred kernel).
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
  /// Waits for the first load and returns its compile stats; rethrows what
  /// `compile` threw, at every call.
  const CompileStats& wait();
  /// Seconds the first load took on its thread (0 before wait() returns).
  double seconds() const;
  /// Kernels still compiling after the first load (0 before wait() returns).
  int deferred() const;
  /// Waits until nothing compiles any more — the first load and the deferred
  /// kernels — keeping a failure for the calls that need the kernels: for a
  /// host that may end the process without destroying this object (Python's
  /// interpreter at exit), whose compile threads would otherwise meet the
  /// JIT's static destructors.
  void finish();

private:
  struct State;
  std::unique_ptr<State> state_;
};

} // namespace plastic::backend
