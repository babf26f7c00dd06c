// The in-memory form every data reader produces and the training loop
// consumes: a Dataset of Samples, each an irregularly sampled multivariate
// time series.
//
// A sample holds its observation times t_0 < ... < t_{n-1} and the values
// [n][c] row-major (the layout runtime/paths builds control paths from), with
// NaN marking a missing observation; series of unequal length are normal.
// Optional static features (one vector per sample) feed an initial state;
// the target is a class index, a binary label, or regression values at the
// final time or at every observation.
//
// Each channel and static feature carries a ChannelKind so that later steps
// know what they may touch: normalisation changes Measured columns only,
// as Kidger et al. normalise the raw features but not the time channel, the
// observation counts or the "was observed" flags they append.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace plastic::rt {

/// What a channel (or static feature) holds.
enum class ChannelKind : uint8_t {
  Measured,  ///< a recorded quantity; normalised with training statistics
  Time,      ///< the observation time itself (added by add_time_channel)
  Count,     ///< cumulative number of observations of another channel (observational intensity)
  Indicator, ///< 0/1 flag, e.g. "this static feature was recorded"
};

/// Short lower-case name ("measured", "time", ...).
const char* channel_kind_name(ChannelKind kind);

/// A named column of the time series (or of the static features).
struct Channel {
  std::string name;
  ChannelKind kind = ChannelKind::Measured;
  bool operator==(const Channel&) const = default;
};

/// What a sample is to be predicted as.
enum class TargetKind : uint8_t {
  None,              ///< unlabelled
  Class,             ///< Sample::label in [0, classes.size())
  Binary,            ///< Sample::label in {0, 1}; classes names the two outcomes
  Regression,        ///< Sample::target holds targets.size() values for the final time
  RegressionPerStep, ///< Sample::target is [n][targets.size()], one row per observation; NaN = no
                     ///< target
};

/// Short lower-case name ("class", "regression per step", ...).
const char* target_kind_name(TargetKind kind);

/// One irregularly sampled multivariate time series and its target.
struct Sample {
  std::string id;            ///< where it came from: file stem, series id, or "<stem>:<line>" (.ts)
  std::vector<double> times; ///< [n], finite and strictly increasing
  std::vector<double> values;  ///< [n][channels] row-major; NaN = missing
  std::vector<double> statics; ///< [statics] per-sample features; NaN = missing
  int label = -1;              ///< class index (Class / Binary), -1 otherwise
  std::vector<double> target;  ///< regression values (see TargetKind)
  /// For a window (series_shaping.h): the index of the series it was cut
  /// from, so that a split keeps a series' windows together; -1 otherwise.
  int64_t source = -1;

  /// Number of observation times n.
  std::size_t length() const { return times.size(); }
};

/// A set of samples sharing channels, static features and target meaning.
struct Dataset {
  std::string name;
  std::vector<Channel> channels; ///< columns of Sample::values
  std::vector<Channel> statics;  ///< entries of Sample::statics
  TargetKind target_kind = TargetKind::None;
  std::vector<std::string> classes; ///< class names (Class, Binary), index = label
  std::vector<std::string> targets; ///< regression target names (Regression*)
  std::vector<Sample> samples;

  std::size_t size() const { return samples.size(); }
  std::size_t num_channels() const { return channels.size(); }
  std::size_t num_statics() const { return statics.size(); }

  /// Value of channel `c` at observation `i` of sample `s`.
  double value(std::size_t s, std::size_t i, std::size_t c) const {
    return samples[s].values[i * channels.size() + c];
  }
  /// Index of the channel called `name`, or nullopt.
  std::optional<std::size_t> channel_index(std::string_view name) const;
  /// Labels of all samples in order (for stratified splits); -1 when unlabelled.
  std::vector<int> labels() const;
  /// Shortest and longest series (0, 0 when empty).
  std::size_t min_length() const;
  std::size_t max_length() const;

  /// Checks every invariant stated above (sizes, increasing finite times,
  /// labels in range); returns a description of the first violation, naming
  /// the sample, or nullopt when the dataset is consistent.
  std::optional<std::string> check() const;
};

/// The samples at `indices` (in that order), with the metadata of `data`.
/// Indices must be < data.size().
Dataset subset(const Dataset& data, std::span<const std::size_t> indices);

/// Every sample cut to its first `length` observations (shorter ones whole),
/// per-observation targets with them: a curriculum's short stage (paper 003
/// App. H.3 trains on growing prefixes). Final-time targets and labels are
/// kept as they are.
Dataset prefixes(const Dataset& data, std::size_t length);

} // namespace plastic::rt
