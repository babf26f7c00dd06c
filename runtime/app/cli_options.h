// The command-line flags of `train`, `eval` and `predict`, registered on a
// CLI11 subcommand. Shared by the `plastic` driver and by model binaries
// built ahead of time, so a flag means the same everywhere.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "runtime/app/requests.h"

namespace plastic::rt {

void add_run_options(CLI::App& cmd, RunOptions& run);
/// --dtype f32|f64 into `dtype`, declared once for every command: `what`
/// says what it sets and its default ("the kernels (default f32)").
CLI::Option* add_dtype_option(CLI::App& cmd, std::string& dtype, const std::string& what);
/// A byte-size option ("512MB", "4GB") into `bytes`; a bad value is refused
/// naming the option ("--memory-limit 1Q: expected a size ...").
CLI::Option* add_size_option(CLI::App& cmd, const std::string& flag, std::optional<double>& bytes,
                             const std::string& help);
/// How to read a .csv file or a folder of .npy series (part of the run options).
/// `target_flag` names the target-column flag: `plastic build`, whose
/// --target is the CPU, calls it --target-column.
void add_data_flags(CLI::App& cmd, DataFlags& flags, const char* target_flag = "--target");
void add_train_options(CLI::App& cmd, TrainRequest& request);
/// --gradient direct|checkpoint|adjoint|auto, --memory-budget SIZE, --memory-limit SIZE.
void add_memory_flags(CLI::App& cmd, MemoryFlags& flags);
void add_eval_options(CLI::App& cmd, EvalRequest& request);
void add_predict_options(CLI::App& cmd, PredictRequest& request);

} // namespace plastic::rt
