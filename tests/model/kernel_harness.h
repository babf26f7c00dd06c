// A generic driver for one ABI kernel against the interpreter: random
// per-sample inputs, lane-interleaved tiles (the last one padded), the
// kernel called per tile, its outputs compared with the reference per
// sample (accumulated outputs start from random values to check +=, lane-
// summed θ cotangents against the sum of per-sample gradients).
#pragma once

#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "runtime/abi.h"
#include "tests/model/reference.h"

namespace plastic::test {

struct ArgSpec {
  enum Role { In, Set, Acc };
  std::string name;
  int64_t size = 0;       ///< per sample (varying) or total (uniform)
  bool uniform = false;
  Role role = In;
  bool cotangent = false;  ///< zero in padded lanes
};

struct KernelCase {
  std::string name;
  void* fn = nullptr;
  uint64_t scratch = 0;
  std::vector<ArgSpec> args;
  /// Calls fn with ptrs in args order.
  std::function<void(void* fn, const std::vector<void*>& ptrs, double t, double h, void* scratch)> call;
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
};

/// The scalars t and h are passed to the references as sample["t"], sample["h"].
/// Largest relative error (max-norm over each output array) over the batch.
struct CaseResult {
  double max_rel_error = 0;
  std::string worst;  ///< "arg" of the worst error
  double worst_abs = 0, worst_scale = 0;  ///< its absolute error and the array's max norm
};

CaseResult run_case(const KernelCase& k, plastic_dtype dtype, int lanes, int batch, uint64_t seed, double t,
                    double h);

}  // namespace plastic::test
