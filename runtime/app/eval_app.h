// `eval` and `predict`: a compiled model with trained parameters (a
// model.safetensors written by `train`) on a split of a data set — the
// task's metric and loss, or one CSV row of outputs per readout.
#pragma once

#include "runtime/abi.h"
#include "runtime/app/requests.h"

namespace plastic::rt {

/// Prints the metric and loss on the requested split; returns the exit code.
int run_eval(const plastic_model& model, const EvalRequest& request);
/// Writes sample id, time and the outputs of every readout as CSV.
int run_predict(const plastic_model& model, const PredictRequest& request);

} // namespace plastic::rt
