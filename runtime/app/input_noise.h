// Noise on the input path, `train --input-noise SIGMA`: a regulariser for
// small data sets. Each epoch trains on a fresh copy of the training series
// whose measured values carry independent Gaussian noise N(0, SIGMA^2), in
// the units the model sees (after the data layer's normalisation), and the
// control paths are rebuilt from the noisy observations — the path stays a
// path (its interpolation of noisy points), not white noise added to x(t)
// at each solver stage. Time, count and indicator channels, missing values
// and the validation and test splits are left as they are.
//
// The noise of epoch e is drawn from its own Philox stream of the run's
// seed, sample by sample in order: a resumed run and a run on more threads
// or ranks see the same noisy series.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "runtime/abi.h"
#include "runtime/batch/prepared_data.h"
#include "runtime/batch/train_hooks.h"
#include "runtime/data/dataset.h"
#include "runtime/train/train_loop.h"

namespace plastic::rt {

/// `data` with N(0, sigma^2) added to every finite measured value, drawn
/// from epoch `epoch`'s noise stream of `seed`.
Dataset with_input_noise(const Dataset& data, double sigma, uint64_t seed, int64_t epoch);

/// Training hooks that train each epoch on with_input_noise(train, ...)
/// prepared as `prepare` says, and validate on `valid` (clean) as
/// make_train_hooks does; fails when epoch 1's series cannot be prepared.
/// The model, `train`, `valid` and `options` must outlive the hooks.
template <class T>
Result<TrainHooks<T>, TrainError>
input_noise_hooks(const plastic_model& model, const Dataset& train, const PrepareOptions& prepare,
                  const PreparedData* valid, const HookOptions& options, double sigma,
                  uint64_t seed);

extern template Result<TrainHooks<float>, TrainError>
input_noise_hooks<float>(const plastic_model&, const Dataset&, const PrepareOptions&,
                         const PreparedData*, const HookOptions&, double, uint64_t);
extern template Result<TrainHooks<double>, TrainError>
input_noise_hooks<double>(const plastic_model&, const Dataset&, const PrepareOptions&,
                          const PreparedData*, const HookOptions&, double, uint64_t);

} // namespace plastic::rt
