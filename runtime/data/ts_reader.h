// Reader for the UEA / sktime `.ts` time-series classification format.
//
// The format (sktime docs, "ts File Format v1.0"): `#` comment lines, then
// `@identifier value` header lines (identifiers case-insensitive), then
// `@data` and one sample per line. Within a sample, dimensions are separated
// by ':' and values by ','; the class label (or, with `@targetLabel true`, a
// regression target) follows the last ':'. `?` or NaN marks a missing value.
// With `@timeStamps true` each value is a `(timestamp,value)` pair, the
// timestamp a number or a date-time (read as hours since 1970, datetime.h);
// dimensions may then be sampled at different times, and a sample's times
// are the union of its dimensions' with NaN where a dimension has no value.
//
// Without time stamps, observation i is at time i (0, 1, ..., n-1), as in
// Kidger et al.'s NCDE code (experiments/datasets/uea.py). Class labels map
// to indices in the order the `@classLabel true ...` line lists them, so
// TRAIN and TEST files agree. Channels are named dim_0, dim_1, ...
//
// Header lines understood: @problemName, @timeStamps, @missing (informative
// only), @univariate, @dimension(s), @equalLength, @seriesLength (checked
// against every dimension when @equalLength is true), @classLabel,
// @targetLabel, @data. Other identifiers are ignored. When @equalLength is
// false a dimension shorter than its sample's longest is padded with NaN at
// the end (sktime allows dimensions of different lengths).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "runtime/data/data_error.h"
#include "runtime/data/dataset.h"

namespace plastic::rt {

/// Reads a `.ts` file. Errors name the path as given.
Result<Dataset, DataError> read_ts(const std::filesystem::path& file);

/// Parses `.ts` text; `file_name` is used in error messages and sample ids.
Result<Dataset, DataError> parse_ts(std::string_view text, const std::string& file_name);

} // namespace plastic::rt
