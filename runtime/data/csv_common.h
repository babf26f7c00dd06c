// What the wide and long CSV readers share: finding named columns, reading
// value and time cells under the options' rules, and turning per-series
// label cells into class indices. Internal to runtime/data.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/data/csv_reader.h"
#include "runtime/data/csv_table.h"

namespace plastic::rt::data_detail {

/// A tokenised file with the options it is read under.
class CsvContext {
public:
  CsvContext(const CsvTable& table, const std::string& file, const CsvOptions& options)
      : table_(table), file_(file), options_(options) {}

  const CsvTable& table() const { return table_; }
  const CsvOptions& options() const { return options_; }
  const std::string& file() const { return file_; }

  /// Error at cell (r, c).
  DataError error(std::size_t r, std::size_t c, std::string message) const;
  /// Index of the column called `name`; `role` says what it was wanted for.
  std::optional<DataError> column(const std::string& name, std::string_view role,
                                  std::size_t& out) const;
  /// Like column(), but an empty name gives nullopt in `out`.
  std::optional<DataError> optional_column(const std::string& name, std::string_view role,
                                           std::optional<std::size_t>& out) const;
  /// A value cell: a number, or NaN for a missing marker, NaN, or the sentinel.
  std::optional<DataError> value(std::size_t r, std::size_t c, double& out) const;
  /// The time of row r from the time column (and the date column if any).
  std::optional<DataError> time(std::size_t r, std::size_t time_col,
                                std::optional<std::size_t> date_col, double& out) const;

private:
  const CsvTable& table_;
  const std::string& file_;
  const CsvOptions& options_;
};

/// Collects one label per series and maps them to class indices.
class SeriesLabels {
public:
  /// Records the label cell (r, c) for series `s`; it must equal what the
  /// series' earlier rows said.
  std::optional<DataError> add(const CsvContext& ctx, std::size_t s, std::size_t r, std::size_t c);
  /// The class names (options.classes, or the sorted distinct labels) and
  /// each series' index; fails on a label outside options.classes.
  std::optional<DataError> resolve(const CsvContext& ctx, std::vector<std::string>& classes,
                                   std::vector<int>& labels) const;

private:
  struct Seen {
    std::string label;
    std::size_t row = 0, column = 0;
  };
  std::vector<Seen> series_;
};

/// The dataset name for a file: its stem.
std::string dataset_name(const std::string& file);

Result<Dataset, DataError> read_wide_csv(const CsvContext& ctx);
Result<Dataset, DataError> read_long_csv(const CsvContext& ctx);

} // namespace plastic::rt::data_detail
