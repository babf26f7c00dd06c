// Readers for time series stored as CSV, in the two common layouts.
//
// * Wide: one row per time step and one column per channel, with an
//   optional time column (else observation i is at time i) and an optional
//   series-id column (else the whole file is one series). Rows of a series
//   need not be adjacent but must come in increasing time. Examples: the UCI
//   air-quality file (Date, Time, 13 sensors, -200 = missing) and the
//   cascaded-tanks benchmark (uEst, uVal, yEst, yVal, Ts).
// * Long: one row per observation — series id, time, channel name, value —
//   in any order; a series' rows are gathered, sorted by time, and rows at
//   the same time merged, with NaN for channels not observed then.
//
// Cells: numbers through std::from_chars (text_scan.h) with a configurable
// decimal point; NaN, the configured markers (empty cell, "NA", "?" by
// default) and an optional sentinel number read as missing. Times are plain
// numbers, ISO date-times, or a date column plus a clock-time column; the
// last two become hours since 1970 (datetime.h). A label column gives each
// series a class (the same on all its rows); target columns give a
// regression target per observation (wide layout).
//
// Series are numbered in order of first appearance; Sample::id is the
// series id (or the file stem when the file is one series).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "runtime/data/data_error.h"
#include "runtime/data/dataset.h"
#include "runtime/data/datetime.h"

namespace plastic::rt {

/// Which of the two layouts (see file comment).
enum class CsvLayout { Wide, Long };

/// How to read a CSV file. Column options name header cells exactly.
struct CsvOptions {
  CsvLayout layout = CsvLayout::Wide;
  char separator = ',';
  char decimal_point =
      '.'; ///< ',' for files written with a European locale (then use separator ';')
  /// Cells meaning "missing" besides NaN (compared after trimming).
  std::vector<std::string> missing_markers = {"", "NA", "?"};
  /// A number meaning "missing" (the UCI air-quality file uses -200).
  std::optional<double> missing_value;

  /// Time column; empty: observation i of a series is at time i (wide only).
  std::string time_column;
  /// Date column whose day is combined with time_column's clock time.
  std::string date_column;
  DateOrder date_order = DateOrder::DayMonthYear;
  /// Series-id column; empty: the file is one series.
  std::string id_column;

  /// Wide: channel columns, in this order; empty: every named column not
  /// used as id, time, date, label or target. Long: channel names to keep,
  /// in this order (each must occur); empty: all, in order of first appearance.
  std::vector<std::string> channels;
  /// Wide: per-observation regression target columns.
  std::vector<std::string> targets;
  /// Class label column (one label per series).
  std::string label_column;
  /// Class names in index order; empty: the distinct labels, sorted
  /// (numerically when all are numbers). With classes given, any other
  /// label is an error.
  std::vector<std::string> classes;

  /// Long: the column naming the channel, and the one holding the value.
  std::string channel_column = "channel";
  std::string value_column = "value";
};

/// Reads a CSV file; errors name the path as given.
Result<Dataset, DataError> read_csv(const std::filesystem::path& file, const CsvOptions& options);

/// Parses CSV text; `file_name` is used in messages and as the dataset name.
Result<Dataset, DataError> parse_csv(std::string text, const std::string& file_name,
                                     const CsvOptions& options);

} // namespace plastic::rt
