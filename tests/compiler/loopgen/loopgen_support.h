// Helpers of the kernel-emitter tests: host buffers in the loop IR's
// lane-interleaved layout, a shared JIT with packed entries, and the check
// every test leans on — emit an ir::Function with emit_standalone, JIT it,
// run one tile with different random data in every lane, and compare each
// lane with the reference interpreter.
//
// Error metric: |jit - ref| / max(|ref|, floor * max|ref| of that output),
// floor 1e-5 for f64 and 1e-2 for f32: with the tolerances of the tests
// (1e-10, 1e-5) an absolute error of 1e-15 (f64, ~5 ulp) or 1e-7 (f32,
// ~1 ulp) of the output's largest value is accepted where a result cancels
// to nearly zero — sums are rounded in a different order than in the
// interpreter — and nothing more. The plain relative error is reported too.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compiler/backend/llvm/jit.h"
#include "compiler/interp/interpreter.h"
#include "compiler/ir/function.h"
#include "compiler/loops/args.h"
#include "compiler/loops/loop_ir.h"

namespace plastic::loopgen::test {

using interp::Tensor;
using loops::ElemType;

/// A 64-byte aligned array of f32 or f64 elements, read and written as double.
class HostBuffer {
public:
  HostBuffer() = default;
  HostBuffer(ElemType type, int64_t elements, double fill = 0);
  int64_t size() const { return n_; }
  void* data() const { return mem_.get(); }
  double get(int64_t i) const;
  void set(int64_t i, double v);

private:
  struct Free {
    void operator()(void* p) const;
  };
  ElemType type_ = ElemType::F64;
  int64_t n_ = 0;
  std::unique_ptr<void, Free> mem_;
};

/// The shared JIT (packed entries on).
backend::Jit& test_jit();
/// A fresh C symbol for a test kernel (JIT symbols must be unique).
std::string unique_name(const std::string& base);
/// Compiles `fn` alone and runs it once on packed arguments.
void run(const loops::Function& fn, const loops::Args& args);

/// Value ranges of the inputs: (leaf) -> [lo, hi].
using Ranges = std::function<std::pair<double, double>(const ir::Node*)>;

struct Check {
  double max_rel = 0;  ///< with the floor (see file comment)
  double max_pure = 0; ///< plain relative error
  std::string where;   ///< output[lane][element] of max_rel
  bool nan_mismatch = false;
  int64_t statements = 0; ///< statements of the emitted loop function
  double compile_ms = 0;  ///< JIT time
};

/// emit_standalone(fn, type, lanes) -> JIT -> one tile vs the interpreter.
/// Inputs are random per lane (Params and t/h are shared by the tile, as the
/// signature makes them uniform).
Check check_standalone(const ir::Function& fn, ElemType type, uint64_t seed,
                       const Ranges& ranges = {}, int lanes = 0);

/// Number of statements (recursively) of a loop function.
int64_t count_statements(const loops::Function& fn);

/// The default floor of the metric for a type.
double default_floor(ElemType t);

} // namespace plastic::loopgen::test
