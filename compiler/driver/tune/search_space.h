// What `plastic tune` searches: the training options (--lr, --weight-decay,
// --batch) and every dim or const the model marks `tune …`, each with a
// range, and the points of a search drawn from them.
//
//   lr            log(1e-4, 1e-2)    from the command line (--space lr=…)
//   beta_scale    log(0.003, 0.3)    from the model: `const beta_scale = 0.03 tune log(0.003, 0.3)`
//
// A point is one value per dimension; it becomes a trial's command line
// (`--lr 0.0012 --set beta_scale=0.041`). Values are printed in the shortest
// form that reads back to the same double, so a trial trains on exactly the
// value its record names.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dsl/model.h"
#include "runtime/support/result.h"

namespace plastic::driver {

struct TuneDimension {
  std::string name;     ///< "lr", "weight-decay", "batch", or a dim / const of the model
  dsl::TuneRange range; ///< bounds (log, linear) or choices
  bool integer = false; ///< a dim or the batch: drawn values are rounded
  bool option = false;  ///< a `train` option (--name VALUE), else a --set name=VALUE
  std::string origin;   ///< where the range came from, for the table's header
};

struct SearchSpace {
  std::vector<TuneDimension> dims;
  const TuneDimension* find(const std::string& name) const;
};

/// One trial's values, in the order of SearchSpace::dims.
using TrialPoint = std::vector<double>;

/// Parses a range as the DSL writes it: "log(1e-4, 1e-2)", "(0, 1)", "[16, 32, 64]";
/// the error says what is wrong and how a range is written.
Result<dsl::TuneRange, std::string> parse_range(const std::string& text);

/// The range as the DSL writes it (for tables and records).
std::string describe_range(const dsl::TuneRange& range);

/// `n` points drawn uniformly (log-uniformly for a log range; choices with
/// equal probability) from `seed`: the same seed, the same points.
std::vector<TrialPoint> random_points(const SearchSpace& space, int64_t n, uint64_t seed);

/// Every combination, each range taken at `per_range` points (evenly, on a
/// log scale for a log range; whole numbers without repeats for an integer
/// one) and each choice list as it is.
std::vector<TrialPoint> grid_points(const SearchSpace& space, int64_t per_range);

/// The arguments a point adds to a `train` command line.
std::vector<std::string> point_arguments(const SearchSpace& space, const TrialPoint& point);

/// A value as the command line and the records write it: the shortest
/// decimal that reads back to the same double.
std::string exact(double value);

} // namespace plastic::driver
