// From what a user types after `--data` to normalised train / validation /
// test sets.
//
// One place decides what a data argument means, so `plastic train`,
// `plastic eval` and ahead-of-time model binaries agree:
//   synthetic:flipflop[:BITS]  the generated n-bit flip-flop (flipflop.h):
//                              500 training and 100 validation trials (App. F),
//                              pulse amplitudes U[-1, 1] (App. F.2)
//   synthetic:flipflop-fixed[:BITS]  the same with pulses of +-1 (App. F.1)
//   DIR with *_TRAIN.ts and *_TEST.ts   a UEA archive folder: the given test
//                              file, validation taken from the training file
//   FILE.ts                    one UEA file, split 70 / 15 / 15
//   DIR with *.psv             PhysioNet 2019 stays (Kidger et al.'s settings;
//                              `oi` chooses the OI or no-OI channels), 70/15/15
//   DIR with *.npy             one series per file (npy_series), 70/15/15
//   FILE.csv                   a wide CSV, one series per id column value
// A .csv or a folder of .npy series can then be reshaped (series_shaping.h):
// targets taken from channels or from the next observation, windows,
// first-row statics, a sampling period. Column options given for any other
// format are refused rather than ignored.
// Splits are stratified by label where there are labels and seeded.
// Normalisation uses training statistics only (normalise.h); a time channel
// is rescaled to the mean training span (a typical series covers [0, 1]).
// The time channel is prepended when the model asks for it (`path[...] with
// time`; then its channels must be the data's + 1) or, for a model that does
// not say, when its path has exactly one channel more than the data — the
// CDE convention of Kidger et al. and paper 000, whose inputs are
// [time, features].
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "runtime/data/csv_reader.h"
#include "runtime/data/data_error.h"
#include "runtime/data/dataset.h"
#include "runtime/data/normalise.h"
#include "runtime/data/series_shaping.h"

namespace plastic::rt {

struct DataOptions {
  uint64_t seed = 0;
  /// Channels the model's path input expects; when it is one more than the
  /// data has, a time channel is prepended. 0: leave the channels alone.
  int64_t model_channels = 0;
  /// The model's path says `with time`: prepend the time channel, and fail
  /// when model_channels is not the data's channels + 1.
  bool model_time_channel = false;
  /// The model's path says `with unit_increments` (normalise.h).
  bool unit_increments = false;
  bool normalise = true;
  /// PhysioNet: the "OI" setting (observational intensity channels).
  bool observational_intensity = false;
  /// Fraction of a given training file held out for validation (UEA).
  double validation_fraction = 0.15;
  /// K-fold cross-validation (split.h, fold_split): with folds >= 2 the
  /// samples not held out for test fall into `folds` stratified parts and
  /// part `fold` (1-based) validates, instead of validation_fraction.
  int64_t folds = 0;
  int64_t fold = 1;
  /// Train on this stratified share of the training part only
  /// (split.h, stratified_share, drawn with `seed`); the validation and
  /// test parts stay those of the whole split, so the points of a
  /// learning curve are measured on the same samples. 1 = all of it.
  double train_fraction = 1;
  /// CSV files (wide layout by default). For a folder of .npy series,
  /// csv.targets and csv.channels name channels (dim_0, dim_1, ...).
  CsvOptions csv;
  /// Applied to .csv and .npy data after reading.
  SeriesShaping shaping;
  /// Keep every sample in `train` (no split): for a separate validation
  /// set given with --valid. A UEA folder still keeps its test file apart.
  bool whole = false;
};

struct DataSplits {
  Dataset train, validation, test;
  std::string description; ///< one line: what was read and how it was split
  /// The data came with their own validation part (a .npy folder's
  /// validation/), not one held out of training by the split.
  bool given_validation = false;
  /// The statistics the splits were normalised with (when normalise was on),
  /// to apply to data read separately (--valid).
  std::optional<Normaliser> normaliser;
};

/// Resolves `spec` (see file comment) and returns the three splits; the test
/// split may be empty (the flip-flop task has none). Errors name the file,
/// line and column where the data went wrong, or say what `spec` should be.
Result<DataSplits, DataError> open_data(const std::string& spec, const DataOptions& options);

} // namespace plastic::rt
