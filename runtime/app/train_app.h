// `train`: the whole run a researcher asks for with one command — data
// opened and prepared, parameters initialised as the model file says, the
// training loop (optimiser, schedule, clipping, early stopping, checkpoints,
// resume, Ctrl-C, progress, logs, plot), and the final parameters evaluated
// on the test split. Drives a compiled model only through its ABI table, so
// the JIT driver and ahead-of-time model binaries share it.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/abi.h"
#include "runtime/app/requests.h"

namespace plastic::rt {

/// Runs the request; prints progress to stderr and results to stdout.
/// Returns the process exit code (0 ok, 1 bad input or a failed run, 2 bad
/// options).
int run_train(const plastic_model& model, const TrainRequest& request);

/// The training loop's schedule configuration for `--schedule` (constant |
/// plateau | cosine) over a run of `epochs` epochs. The loop steps schedules
/// once per epoch, so a cosine schedule spans `epochs` steps.
nlohmann::json schedule_config(const std::string& schedule, int64_t epochs);

} // namespace plastic::rt
