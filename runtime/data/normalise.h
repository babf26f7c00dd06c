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
//
// Time. A time channel (ChannelKind::Time, see transforms.h) is not
// standardised but rescaled: t <- t * time_scale with time_scale = 1 / the
// mean observation span (last time - first time) of the training series, so
// a typical series covers an interval of length 1 whatever its length or
// clock (61-182 steps, 2500 steps, hours). Relative lengths survive (a series
// twice the mean span ends near 2), the increments of time stay comparable
// to those of standardised channels, and no model needs a constant fitted to
// one data set's length. Only the channel is rescaled: the observation times
// the solver integrates over are kept, so `step 1.0` is still one step per
// observation.
//
// Increments (on request: the model's `input x : path[...] ... with
// unit_increments`). After standardising, the per-step changes of the
// Measured channels x[i+1] - x[i] over the training split have an RMS of
// `increment_rms` (pooled over channels and samples; NaN steps skipped);
// every Measured channel's scale is multiplied by it, so those increments
// have unit RMS. A model reading dx(t) (a CDE's keys and queries, for one)
// then sees rates of order one whether the data are smooth or rough.
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
  /// Factor of Time channels: 1 / mean training span (1 without a Time
  /// channel or when every span is 0).
  double time_scale = 1.0;
  /// RMS of a per-step increment of the standardised Measured channels,
  /// folded into channel_scale; 1 when increments were not normalised.
  double increment_rms = 1.0;

  /// Normalises `data` in place. Fails (changing nothing) when its channels
  /// or static features differ in number from those it was fitted on.
  Status<DataError> apply(Dataset& data) const;
};

/// Statistics of the Measured channels, time channel and static features of
/// `train`; with `unit_increments`, Measured channels are scaled further so
/// that their per-step increments have unit RMS (see above).
Normaliser fit_normaliser(const Dataset& train, double epsilon = 1e-5,
                          bool unit_increments = false);

} // namespace plastic::rt
