// Shared helpers of the code generator tests: aligned host buffers that
// follow a loop function's parameter list, a runner that executes one
// function through the JIT and through the reference interpreter on copies
// of the same random inputs, and the error metric the tests assert on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "compiler/backend/llvm/jit.h"
#include "compiler/loops/args.h"
#include "compiler/loops/loop_ir.h"

namespace plastic::backend::test {

using namespace ::plastic::loops;

/// A 64-byte aligned array of f32 or f64 elements, read and written as double.
class HostBuffer {
public:
  HostBuffer() = default;
  HostBuffer(ElemType type, int64_t elements);
  ElemType type() const { return type_; }
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

/// One argument's setup: buffers filled uniformly at random in [lo, hi]
/// (every lane different), scalars set to `value`.
struct ArgSpec {
  double lo = -1, hi = 1;
  double value = 0;
};

/// Buffers (and scalar values) for every parameter of a function; the
/// scratch arena included. Copyable so JIT and interpreter get equal inputs.
struct Frame {
  std::vector<HostBuffer> buffers; ///< per parameter (empty for scalars/opaque)
  std::vector<double> scalars;     ///< per parameter (scalars only)
  std::vector<ParamKind> kinds;    ///< per parameter
  Args args() const;               ///< packed arguments pointing into this frame
  Frame clone() const;
};

/// Fills a frame for `fn`: specs by parameter name, default [-1, 1].
Frame make_frame(const Function& fn, const std::vector<std::pair<std::string, ArgSpec>>& specs,
                 uint64_t seed);

/// Largest error between JIT and interpreter over the writable buffers:
/// |jit - ref| / max(|ref|, floor * max|ref| of that buffer). The floor
/// keeps the ratio meaningful where a result cancels to nearly zero: a sum's
/// rounding error is relative to its largest terms, not to the sum. The
/// default floor is per type: 1e-3 for f64; 1e-2 for f32, so that with the
/// 1e-5 tolerance an absolute error of 1e-7 * max|ref| (one f32 ulp of the
/// buffer's largest value, 2^-23 = 1.2e-7) is accepted and nothing more.
struct Comparison {
  double max_rel = 0;  ///< with the floor
  double max_pure = 0; ///< plain |jit-ref|/|ref| (informational)
  std::string where;   ///< buffer[element] of max_rel
  bool nan_mismatch = false;
};
Comparison compare(const Function& fn, const Frame& jit, const Frame& ref, double floor = 0);
/// The default floor of compare() for a type.
double default_floor(ElemType t);

/// A JIT with packed entries (shared by the tests), per math mode.
Jit& test_jit(MathMode mode = MathMode::Polynomial);

/// Compiles `fn` alone, runs it through the JIT and the interpreter on the
/// same random inputs, returns the comparison (and leaves results in the frames).
Comparison run_both(const Function& fn, const std::vector<std::pair<std::string, ArgSpec>>& specs,
                    uint64_t seed = 1, MathMode mode = MathMode::Polynomial);

/// Resident set size of this process in bytes (/proc/self/statm).
int64_t resident_bytes();

} // namespace plastic::backend::test
