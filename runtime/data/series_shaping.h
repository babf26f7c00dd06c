// Turning one long recording into training samples a model can read: the
// steps between reading a .csv or a folder of .npy series and splitting it.
//
// The readers give series of channels (and, for CSV, per-step targets named
// by column). What a model wants is often more specific:
//   * channels that are really targets (a .npy rollout has no header, so its
//     columns are dim_0, dim_1, ... and are picked by those names);
//   * "predict the next observation": each step's target is the following
//     observation of every channel (a model of the dynamics, such as the
//     ODE-RFWP environment model on the Walker2d rollouts);
//   * windows: a single long recording (air quality, the cascaded tanks)
//     cut into fixed-length pieces so that there are samples to split,
//     shuffle and batch;
//   * static features taken from a window's first row (the initial tank
//     level from which a state-space model starts);
//   * a sampling period: row i at time i * period when the file has no time
//     column (the tanks are sampled every 4 s and the model's solver step
//     is in seconds).
// Applied in that order, so "next" targets reach across window borders and
// statics are read from each window's own first row.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/data/data_error.h"
#include "runtime/data/dataset.h"

namespace plastic::rt {

struct SeriesShaping {
  /// Channels to move to per-step regression targets (by name).
  std::vector<std::string> target_channels;
  /// Each step's target is the next observation of every channel (the last
  /// step of a series has none: NaN).
  bool target_next = false;
  /// Cut each series into consecutive windows of this many observations (a
  /// shorter tail is dropped); 0 keeps the series whole.
  int64_t window = 0;
  /// Channels or targets whose value at a sample's first observation becomes
  /// a static feature (by name; a target keeps being a target).
  std::vector<std::string> statics;
  /// Multiply every observation time by this (the sampling period when the
  /// times are row numbers).
  double period = 1;

  bool empty() const {
    return target_channels.empty() && !target_next && window == 0 && statics.empty() && period == 1;
  }
};

/// Keeps only the channels named in `names`, in that order (a folder of
/// .npy series read with --channels).
Status<DataError> select_channels(Dataset& data, const std::vector<std::string>& names,
                                  const std::string& source);

/// Makes channel `name` the observation times of every sample (a .npy
/// folder's `--time dim_K`) and removes it from the channels; each
/// sample's times must be finite and strictly increasing (an error names
/// the sample and the row).
Status<DataError> take_time_channel(Dataset& data, const std::string& name,
                                    const std::string& source);

/// Applies `shaping` to `data` in place (see file comment); errors name
/// `source` (the data argument) and the column that could not be found.
Status<DataError> shape_series(Dataset& data, const SeriesShaping& shaping,
                               const std::string& source);

} // namespace plastic::rt
