// What `dim d from data.X` takes before a model is compiled, shared by the
// commands that compile a model for data: train, eval, predict and analyze.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "runtime/app/binding.h"
#include "runtime/app/requests.h"

namespace plastic::driver {

// What `dim d from data.X` takes, and the name messages give it. A trained
// run's dims are the run's (its binding records them): eval and predict of
// new series compile the model that was trained, whatever the series hold —
// the series are then checked against it. Otherwise the data are read once
// here for their channels and classes, as the run read them (its --label,
// --id, --channels ... fill the flags not given now). Data that cannot be
// read are left to the command, which reports them (and, for `train
// --force`, after clearing the old run).
std::optional<std::pair<std::map<std::string, int64_t>, std::string>>
data_quantities_for(const std::optional<rt::RunBinding>& binding, const std::string& recorded_run,
                    const rt::RunOptions& run);

} // namespace plastic::driver
