// The wide CSV layout: one row per time step, one column per channel
// (see csv_reader.h).
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "runtime/data/csv_common.h"

namespace plastic::rt::data_detail {
namespace {

// Columns the options name, resolved against the header.
struct WideColumns {
  std::optional<std::size_t> id, time, date, label;
  std::vector<std::size_t> channels, targets;
};

std::optional<DataError> resolve_columns(const CsvContext& ctx, WideColumns& cols) {
  const CsvOptions& o = ctx.options();
  if (!o.label_column.empty() && !o.targets.empty())
    return file_error(
        ctx.file(),
        "a label column and target columns cannot both be read: a sample has one target");
  if (!o.date_column.empty() && o.time_column.empty())
    return file_error(ctx.file(), "a date column needs a time column holding the clock time");
  if (auto e = ctx.optional_column(o.id_column, "series id", cols.id)) return e;
  if (auto e = ctx.optional_column(o.time_column, "time", cols.time)) return e;
  if (auto e = ctx.optional_column(o.date_column, "date", cols.date)) return e;
  if (auto e = ctx.optional_column(o.label_column, "class label", cols.label)) return e;
  for (const std::string& name : o.targets) {
    std::size_t c = 0;
    if (auto e = ctx.column(name, "regression target", c)) return e;
    cols.targets.push_back(c);
  }
  if (!o.channels.empty()) {
    for (const std::string& name : o.channels) {
      std::size_t c = 0;
      if (auto e = ctx.column(name, "channel", c)) return e;
      cols.channels.push_back(c);
    }
    return std::nullopt;
  }
  const auto used = [&](std::size_t c) {
    for (const auto& x : {cols.id, cols.time, cols.date, cols.label})
      if (x && *x == c) return true;
    for (std::size_t t : cols.targets)
      if (t == c) return true;
    return false;
  };
  const auto& header = ctx.table().header();
  for (std::size_t c = 0; c < header.size(); ++c)
    if (!header[c].empty() && !used(c)) cols.channels.push_back(c);
  if (cols.channels.empty())
    return text_error(
        ctx.file(), ctx.table().header_line(), 1,
        "expected at least one channel column besides id, time, date, label and targets");
  return std::nullopt;
}

} // namespace

Result<Dataset, DataError> read_wide_csv(const CsvContext& ctx) {
  const CsvTable& table = ctx.table();
  WideColumns cols;
  if (auto e = resolve_columns(ctx, cols)) return *e;

  // Rows of each series, series in order of first appearance.
  std::vector<std::string> ids;
  std::vector<std::vector<std::size_t>> rows_of;
  std::unordered_map<std::string_view, std::size_t> series_of;
  for (std::size_t r = 0; r < table.rows(); ++r) {
    std::string_view id;
    if (cols.id) {
      id = table.cell(r, *cols.id);
      if (id.empty()) return ctx.error(r, *cols.id, "expected a series id, found an empty cell");
    }
    const auto [it, inserted] = series_of.try_emplace(id, ids.size());
    if (inserted) {
      ids.emplace_back(id);
      rows_of.emplace_back();
    }
    rows_of[it->second].push_back(r);
  }

  Dataset data;
  data.name = dataset_name(ctx.file());
  for (std::size_t c : cols.channels)
    data.channels.push_back({table.header()[c]});
  for (std::size_t c : cols.targets)
    data.targets.push_back(table.header()[c]);
  if (!cols.targets.empty()) data.target_kind = TargetKind::RegressionPerStep;
  SeriesLabels labels;
  for (std::size_t s = 0; s < ids.size(); ++s) {
    Sample x;
    x.id = cols.id ? ids[s] : data.name;
    const auto& rows = rows_of[s];
    x.times.reserve(rows.size());
    x.values.reserve(rows.size() * cols.channels.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const std::size_t r = rows[i];
      double t = static_cast<double>(i);
      if (cols.time) {
        if (auto e = ctx.time(r, *cols.time, cols.date, t)) return *e;
        if (i > 0 && !(t > x.times.back()))
          return ctx.error(
              r, *cols.time,
              fmt::format(
                  "expected the time to increase within series '{}', found {} after {} (line {})",
                  x.id, t, x.times.back(), table.line(rows[i - 1])));
      }
      x.times.push_back(t);
      for (std::size_t c : cols.channels) {
        double v = 0;
        if (auto e = ctx.value(r, c, v)) return *e;
        x.values.push_back(v);
      }
      for (std::size_t c : cols.targets) {
        double v = 0;
        if (auto e = ctx.value(r, c, v)) return *e;
        x.target.push_back(v);
      }
      if (cols.label)
        if (auto e = labels.add(ctx, s, r, *cols.label)) return *e;
    }
    data.samples.push_back(std::move(x));
  }
  if (data.samples.empty())
    return text_error(ctx.file(), table.end_line(), 1,
                      "expected rows after the header, found end of file");
  if (cols.label) {
    std::vector<int> index;
    if (auto e = labels.resolve(ctx, data.classes, index)) return *e;
    data.target_kind = TargetKind::Class;
    for (std::size_t s = 0; s < index.size(); ++s)
      data.samples[s].label = index[s];
  }
  return data;
}

} // namespace plastic::rt::data_detail
