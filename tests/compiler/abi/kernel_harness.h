// A generic driver for one ABI kernel against the interpreter: random
// per-sample inputs, lane-interleaved tiles (the last one padded), the
// kernel called per tile, its outputs compared with the reference per
// sample (accumulated outputs start from random values to check +=, lane-
// summed θ cotangents against the sum of per-sample gradients), with errors
// judged against the interpreter's own f32 rounding (judge).
#pragma once

#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "runtime/abi.h"
#include "tests/compiler/abi/reference.h"

namespace plastic::test {

struct ArgSpec {
  enum Role { In, Set, Acc };
  std::string name;
  int64_t size = 0; ///< per sample (varying) or total (uniform)
  bool uniform = false;
  Role role = In;
  bool cotangent = false; ///< zero in padded lanes
  /// A uniform Set output written only on [written_begin, written_end) (-1:
  /// to the end); the kernel must leave the rest as it found it.
  int64_t written_begin = 0, written_end = -1;
};

struct KernelCase {
  std::string name;
  void* fn = nullptr;
  uint64_t scratch = 0;
  std::vector<ArgSpec> args;
  /// Calls fn with ptrs in args order.
  std::function<void(void* fn, const std::vector<void*>& ptrs, double t, double h, void* scratch)>
      call;
  /// Per sample: the expected value (Set) or increment (Acc) of each output
  /// arg; for uniform outputs the sample's contribution to the lane sum.
  std::function<std::map<std::string, Vec>(const std::map<std::string, Vec>& sample)> reference;
  /// Optional: a lower bound of the scale errors of `arg` are measured
  /// against for one sample (default: the max norm of its reference value).
  std::function<double(const std::string& arg, const std::map<std::string, Vec>& sample,
                       const std::map<std::string, Vec>& reference)>
      scale_floor;
  /// Random-input generators by arg name (default U(-1, 1)).
  std::map<std::string, std::function<Vec(std::mt19937_64&)>> generate;
  /// Optional: per-sample inputs the ABI defines from the others (an FSAL
  /// step's k_first = f(t, z0, u(t))), by arg name, computed from a sample
  /// after the random ones are drawn (with "t" and "h" as in `reference`).
  std::function<std::map<std::string, Vec>(const std::map<std::string, Vec>& sample)> derive;
};

/// Errors of one output array, per sample of the batch (a uniform output: one
/// entry, the lane sum): the max-norm error of the kernel against the f64
/// interpreter, the array's scale (its reference's max norm, or the case's
/// scale_floor if larger) and, for f32 kernels, the max-norm error of the
/// interpreter itself run in f32 on the same inputs (F32Reference; 0 in f64,
/// and where f32 overflows to inf or NaN that f64 does not: that says nothing
/// about rounding).
struct OutputErrors {
  std::vector<double> kernel, f32_reference, scale;
};

struct CaseResult {
  int batch = 0;
  std::map<std::string, OutputErrors> outputs; ///< by arg name
};

/// The scalars t and h are passed to the references as sample["t"], sample["h"].
CaseResult run_case(const KernelCase& k, plastic_dtype dtype, int lanes, int batch, uint64_t seed,
                    double t, double h);

/// The accuracy check of one kernel over several runs (batches): every
/// output array of every sample must satisfy
///
///   kernel error <= max(tol * scale, C * f32 yardstick)
///
/// where the yardstick of an output is the largest f32_reference error over
/// all runs. A relative tolerance alone is wrong for f32 where an output is a
/// sum of terms much larger than itself (a dot product that nearly cancels):
/// the rounding of the terms, ~1e-7 of their size, is then a large fraction
/// of the result whatever the order of the sums, and the f32 interpreter
/// shows how large. The yardstick is pooled over every sample of every run
/// because one sample's rounding error can be near 0 by luck; it is an
/// absolute error because rounding in a sum scales with its terms, not with
/// the result. C allows the kernel's different (blocked, fused) order of
/// operations a few times the interpreter's rounding; anything beyond is not
/// rounding. In f64 the yardstick is 0 and this is tol * scale.
struct Verdict {
  bool ok = true;
  double worst = 0;    ///< largest kernel error / bound
  std::string message; ///< where the worst one is, with its numbers
};
Verdict judge(const std::vector<CaseResult>& runs, double tol, double C);

} // namespace plastic::test
