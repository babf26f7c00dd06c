// Before a training step allocates anything: the gradient method it will
// use (the model's, `--gradient`, or `--gradient auto` chosen from a memory
// budget) and the memory the step needs, refused with the numbers when it
// cannot fit the machine's available memory or `--memory-limit`. Shared by
// `train` and `bench-train` (and so by model binaries).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "runtime/abi.h"
#include "runtime/app/app_error.h"
#include "runtime/batch/prepared_data.h"
#include "runtime/gradients/gradient.h"
#include "runtime/gradients/memory_estimate.h"
#include "runtime/support/result.h"

namespace plastic::rt {

struct MemoryRequest {
  int64_t batch = 32;
  int threads = 0;              ///< 0 = every core
  std::string gradient;         ///< "" = the model's; direct | checkpoint | adjoint | auto
  std::optional<double> budget; ///< auto: bytes for the gradient; unset = half of MemAvailable
  std::optional<double> limit;  ///< refuse above this; unset = MemAvailable
};

struct MemoryPlan {
  GradientOptions gradient; ///< what the batch gradient will use
  GradientChoice choice;
  WalkLength walk;  ///< the longest series' walk the estimate is for
  StepMemory step;  ///< the estimate
  std::string line; ///< "gradient auto: checkpoint every 8 steps, est. 130 MB of 512 MB budget"
};

/// The plan for training `model` on `train` (its longest series), or the
/// refusal (exit code 1) naming what needs the memory and what would fit.
Result<MemoryPlan, AppError> plan_memory(const plastic_model& model, const PreparedData& train,
                                         const MemoryRequest& request);

} // namespace plastic::rt
