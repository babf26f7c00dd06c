// The memory a training step of a checked model needs, known before its
// kernels are compiled: `plastic check` prints it (at the default batch and
// threads, said), and `check`, `train` and `bench-train` refuse a model whose
// smallest possible step cannot fit the machine's available memory or
// `--memory-limit`, with a located error at the declaration that takes the
// memory — before compiling, so a dim set far too large fails in
// milliseconds rather than in bad_alloc. The estimate is the runtime's
// (runtime/gradients/memory_estimate.h), without the kernels' scratch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "dsl/check.h"
#include "dsl/diagnostics.h"
#include "dsl/model.h"
#include "runtime/gradients/memory_estimate.h"

namespace plastic::driver {

/// Where a training step's memory is estimated for.
struct StepSetting {
  std::string dtype = "f32";
  int64_t batch = 32; ///< train's default
  int threads = 0;    ///< 0 = every core
  int lanes = 0;      ///< 0 = as train would choose for this batch and threads
  int workers = 1;    ///< tiles in flight (resolved by memory_setting)
};

/// Resolves the lanes and the tiles in flight of `setting`.
StepSetting memory_setting(StepSetting setting);

/// The runtime's sizes of a checked model (no kernel scratch yet).
rt::MemoryShape memory_shape(const dsl::CheckedModel& model, const StepSetting& setting);

/// One line for `plastic check`: the step at `setting` for series of 100
/// observations one time unit apart (bench-train's default), per method.
std::string memory_summary(const dsl::CheckedModel& model, const StepSetting& setting);

/// False (with a located error in `diag`) when the smallest training step
/// `model` can take at `setting` exceeds `limit` (unset: MemAvailable). The
/// hint names the dim of the largest declaration and the largest value of
/// it that fits, found by checking `file` again with `options` and that
/// dim set.
bool check_memory_floor(const dsl::CheckedModel& model, const StepSetting& setting,
                        std::optional<double> limit, dsl::DiagnosticEngine& diag,
                        const std::string& file, const dsl::CheckOptions& options);

} // namespace plastic::driver
