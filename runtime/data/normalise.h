// Per-channel normalisation with statistics of the training split only.
//
// Follows Kidger et al. (patrick-kidger/NeuralCDE,
// experiments/datasets/common.py, `normalise_data`): for each channel the
// mean and the standard deviation of its observed (non-NaN) training values,
// then x <- (x - mean) / (std + 1e-5). The std is the sample standard
// deviation (n - 1 in the denominator), as torch.Tensor.std computes it.
// Fitting on the training split and applying the same numbers to
// validation and test keeps their statistics out of training.
//
// Only Measured channels and static features are normalised; time, count and
// indicator columns keep their values (Kidger et al. normalise the raw
// features before appending time and intensity, and leave the
// "was observed" static flags alone). NaN stays NaN. Where torch would
// produce NaN statistics — no training observation (mean of nothing) or a
// single one (n - 1 = 0) — the column gets mean 0 or its one value, and
// scale 1, so it passes through finite.
#pragma once

#include <vector>

#include "runtime/data/data_error.h"
#include "runtime/data/dataset.h"

namespace plastic::rt {

/// Per-column affine maps x <- (x - mean) / scale; mean 0 and scale 1 for
/// columns left alone.
struct Normaliser {
  std::vector<double> channel_mean, channel_scale; ///< [channels]
  std::vector<double> static_mean, static_scale;   ///< [statics]

  /// Normalises `data` in place. Fails (changing nothing) when its channels
  /// or static features differ in number from those it was fitted on.
  Status<DataError> apply(Dataset& data) const;
};

/// Statistics of the Measured channels and static features of `train`.
Normaliser fit_normaliser(const Dataset& train, double epsilon = 1e-5);

} // namespace plastic::rt
