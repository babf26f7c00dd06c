// `bench-train`: the time of one training step (forward solve, gradient by
// the model's or a requested method, Adam update) on synthetic data shaped
// like the model's inputs, and the memory the steps need. bench/run.sh runs
// it beside the PyTorch reference; nothing here asserts a time.
//
// `gradient_estimate_mb` is what memory_plan.h predicted for the gradient
// before the steps ran, next to `gradient_peak_mb`, what its MemoryMeter saw.
//
// Memory is the growth of the resident set's high-water mark during the
// timed steps: /proc/self/clear_refs resets VmHWM after set-up (so the
// compiler's and the data's memory do not count), and VmHWM is read after.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/abi.h"
#include "runtime/app/requests.h"

namespace plastic::rt {

struct BenchRequest {
  int64_t batch = 128;
  int threads = 0;
  int64_t steps = 5;  ///< timed steps (after one warm-up step)
  int64_t length = 0; ///< observations per series; 0 = 100
  double dt = 1.0;    ///< time between observations (the flip-flop's bins are 0.01 s)
  MemoryFlags memory; ///< --gradient (also auto), --memory-budget, --memory-limit
  uint64_t seed = 0;
  bool json = false; ///< one JSON line instead of a sentence
};

/// Runs the benchmark and prints its result; returns the exit code.
int run_bench_train(const plastic_model& model, const BenchRequest& request);

} // namespace plastic::rt
