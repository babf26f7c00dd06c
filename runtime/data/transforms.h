// Channels derived from the observations, added before training.
//
// Both follow Kidger et al.'s NCDE preprocessing (patrick-kidger/NeuralCDE,
// experiments/datasets/common.py, `preprocess_data`), which builds the input
// as [time, intensity, original] in that order; calling
// add_observation_intensity and then add_time_channel (each prepends)
// reproduces that layout.
#pragma once

#include "runtime/data/dataset.h"

namespace plastic::rt {

/// Prepends a channel "time" (ChannelKind::Time) holding each observation's
/// time — with `from_zero`, the time since the sample's first observation
/// (useful when times are absolute clock hours). A CDE needs time among its
/// channels to see the speed of the series, not only its shape.
void add_time_channel(Dataset& data, bool from_zero = false);

/// Observational intensity: prepends, for every Measured channel "x", a
/// Count channel "x_count" holding how many non-NaN values of "x" were seen
/// up to and including each observation — Kidger et al.'s
/// `(~torch.isnan(X)).cumsum(dim=1)`. The counts come before the measured
/// channels, in the same order.
void add_observation_intensity(Dataset& data);

} // namespace plastic::rt
