// What the REPL does with a session's model: train it (through the
// runtime's training loop, with the session's optimiser state carried from
// one call to the next), evaluate it, predict one sample, list its
// parameters, time a training step, and save a run folder that `plastic
// eval` and model binaries read. Each returns false after printing why.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "compiler/driver/repl/session.h"
#include "runtime/batch/predict.h"

namespace plastic::driver::repl {

/// Trains `count` epochs, or `count` optimiser steps when `steps`. Ctrl-C
/// stops at the next batch and keeps what was learnt.
bool train(Session& s, int64_t count, bool steps);

/// The task's metric and loss on a split ("train", "validation", "test"),
/// printed and returned (nullopt after printing why not).
std::optional<rt::Evaluation> evaluate(Session& s, const std::string& split);

/// The outputs of sample `index` of a split, row by row, with its targets.
bool predict_sample(Session& s, const std::string& split, int64_t index);

/// Every sample of a split ("all": every non-empty one; "data" for new
/// series given to an opened run) written to `file` as `plastic predict`
/// writes it (the same columns and digits), atomically; `alone` solves each
/// sample in a tile of its own (`plastic predict --series-alone`).
bool predict_to_csv(Session& s, const std::string& split, const std::string& file,
                    bool alone = false);

/// Name, shape, size, L2 norm and largest magnitude of every parameter.
void print_parameters(const Session& s);

/// One training step timed on synthetic data shaped like the inputs (`plastic bench-train`).
bool time_step(Session& s);

/// The stability report of the current parameters (compiler/analysis/
/// stability.h): Jacobians along trajectories of 4 training samples when
/// data is chosen, at the origin otherwise; with `plot`, a PNG of the
/// solver's region and the h·λ points.
bool stability(Session& s, const std::string& plot);

/// Writes a run folder as `train` does: `dir`/model.safetensors (with the
/// model's hash) and the binding (binding.h: run.json, model.ode as edited,
/// data.json when data is open), under the folder's lock, replacing a run
/// there only with `force`; prints the `plastic eval` command that reads it.
bool save_run(Session& s, const std::string& dir, bool force);

} // namespace plastic::driver::repl
