// A model's data: the --data argument opened for a compiled model (the time
// channel added when its path wants one) and every split prepared for its
// kernels (control paths, log-signatures, targets — computed once).
#pragma once

#include <optional>
#include <string>

#include "runtime/abi.h"
#include "runtime/app/app_error.h"
#include "runtime/app/requests.h"
#include "runtime/batch/prepared_data.h"
#include "runtime/data/open_data.h"

namespace plastic::rt {

struct ModelData {
  DataSplits splits;
  std::optional<PreparedData> train, validation, test; ///< absent for an empty split
};

/// Opens run.data for `model` and prepares its non-empty splits.
AppResult<ModelData> open_model_data(const plastic_model& model, const RunOptions& run);

/// Channels the model's path input expects (0 when it reads no path).
int64_t model_path_channels(const plastic_model& model);

} // namespace plastic::rt
