// Random data shaped like a model's inputs: series of the model's path
// channels (Gaussian random walks on a regular time grid), its static
// features, and targets of its task (random class labels, 0/1 labels or
// regression values, at the end or at every observation). For benchmarks
// and smoke tests: only the shapes matter.
#pragma once

#include <cstdint>

#include "runtime/abi.h"
#include "runtime/data/dataset.h"

namespace plastic::rt {

/// Observation i of every series is at time i * dt.
Dataset synthetic_dataset(const plastic_model& model, int64_t samples, int64_t length,
                          uint64_t seed, double dt = 1.0);

} // namespace plastic::rt
