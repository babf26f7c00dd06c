// The long CSV layout: one row per observation (series id, time, channel,
// value), in any order (see csv_reader.h).
#include <algorithm>
#include <limits>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "runtime/data/csv_common.h"

namespace plastic::rt::data_detail {
namespace {

/// One row kept: where its value goes, and the row for messages.
struct Observation {
  std::size_t series, channel, row;
  double time, value;
};

/// Columns the options name, resolved against the header.
struct LongColumns {
  std::optional<std::size_t> id, date, label;
  std::size_t time = 0, channel = 0, value = 0;
};

/// What the rows hold: channel and series names in order of first
/// appearance, one observation per row kept, and the series' labels.
struct LongRows {
  std::vector<std::string> channels, ids;
  std::vector<Observation> obs;
  SeriesLabels labels;
};

/// Checks the options against the long layout and finds its columns.
std::optional<DataError> resolve_columns(const CsvContext& ctx, LongColumns& cols) {
  const CsvOptions& o = ctx.options();
  if (!o.targets.empty())
    return file_error(ctx.file(), "target columns are read in the wide layout only");
  if (o.time_column.empty()) return file_error(ctx.file(), "the long layout needs a time column");
  if (auto e = ctx.optional_column(o.id_column, "series id", cols.id)) return e;
  if (auto e = ctx.column(o.time_column, "time", cols.time)) return e;
  if (auto e = ctx.optional_column(o.date_column, "date", cols.date)) return e;
  if (auto e = ctx.column(o.channel_column, "channel name", cols.channel)) return e;
  if (auto e = ctx.column(o.value_column, "value", cols.value)) return e;
  if (auto e = ctx.optional_column(o.label_column, "class label", cols.label)) return e;
  return std::nullopt;
}

/// Reads every row into `out`, skipping rows of channels not asked for.
std::optional<DataError> read_rows(const CsvContext& ctx, const LongColumns& cols, LongRows& out) {
  const CsvTable& table = ctx.table();
  const CsvOptions& o = ctx.options();
  // Channels: the given list, or every name in order of first appearance.
  out.channels = o.channels;
  std::unordered_map<std::string, std::size_t> channel_of;
  for (std::size_t c = 0; c < out.channels.size(); ++c)
    channel_of.emplace(out.channels[c], c);
  std::unordered_map<std::string_view, std::size_t> series_of;
  out.obs.reserve(table.rows());
  for (std::size_t r = 0; r < table.rows(); ++r) {
    std::string_view id;
    if (cols.id) {
      id = table.cell(r, *cols.id);
      if (id.empty()) return ctx.error(r, *cols.id, "expected a series id, found an empty cell");
    }
    const auto [sit, new_series] = series_of.try_emplace(id, out.ids.size());
    if (new_series) out.ids.emplace_back(id);
    if (cols.label)
      if (auto e = out.labels.add(ctx, sit->second, r, *cols.label)) return e;
    const std::string name(table.cell(r, cols.channel));
    if (name.empty())
      return ctx.error(r, cols.channel, "expected a channel name, found an empty cell");
    auto cit = channel_of.find(name);
    if (cit == channel_of.end()) {
      if (!o.channels.empty()) continue; // a channel not asked for
      cit = channel_of.emplace(name, out.channels.size()).first;
      out.channels.push_back(name);
    }
    Observation x{sit->second, cit->second, r, 0, 0};
    if (auto e = ctx.time(r, cols.time, cols.date, x.time)) return e;
    if (auto e = ctx.value(r, cols.value, x.value)) return e;
    out.obs.push_back(x);
  }
  return std::nullopt;
}

/// Fails on the first channel asked for by name that no row holds.
std::optional<DataError> check_channels_found(const CsvContext& ctx, std::size_t channel_col,
                                              const LongRows& rows) {
  const CsvTable& table = ctx.table();
  for (const std::string& name : ctx.options().channels)
    if (std::none_of(rows.obs.begin(), rows.obs.end(),
                     [&](const Observation& x) { return rows.channels[x.channel] == name; }))
      return text_error(ctx.file(), table.header_line(), table.header_column(channel_col),
                        fmt::format("expected channel '{}' in column '{}', found no row for it",
                                    name, ctx.options().channel_column));
  return std::nullopt;
}

/// Orders observations by series, time and channel (then row), so that each
/// series' time steps are consecutive and a repeated value follows the first.
void sort_observations(std::vector<Observation>& obs) {
  std::sort(obs.begin(), obs.end(), [](const Observation& a, const Observation& b) {
    if (a.series != b.series) return a.series < b.series;
    if (a.time != b.time) return a.time < b.time;
    if (a.channel != b.channel) return a.channel < b.channel;
    return a.row < b.row;
  });
}

/// Fills `data`'s channels and samples from the sorted observations; a time
/// step missing a channel holds NaN there.
std::optional<DataError> fill_samples(const CsvContext& ctx, const LongColumns& cols,
                                      const LongRows& rows, Dataset& data) {
  const std::vector<Observation>& obs = rows.obs;
  for (const std::string& name : rows.channels)
    data.channels.push_back({name});
  const std::size_t c = rows.channels.size();
  data.samples.resize(rows.ids.size());
  for (std::size_t s = 0; s < rows.ids.size(); ++s)
    data.samples[s].id = cols.id ? rows.ids[s] : data.name;
  for (std::size_t k = 0; k < obs.size(); ++k) {
    const Observation& x = obs[k];
    Sample& s = data.samples[x.series];
    if (k > 0 && obs[k - 1].series == x.series && obs[k - 1].time == x.time &&
        obs[k - 1].channel == x.channel)
      return ctx.error(
          x.row, cols.value,
          fmt::format(
              "expected one value per series, time and channel, found a second value of '{}' at "
              "time {} (the first is on line {})",
              rows.channels[x.channel], x.time, ctx.table().line(obs[k - 1].row)));
    if (s.times.empty() || s.times.back() != x.time) {
      s.times.push_back(x.time);
      s.values.resize(s.values.size() + c, std::numeric_limits<double>::quiet_NaN());
    }
    s.values[(s.times.size() - 1) * c + x.channel] = x.value;
  }
  return std::nullopt;
}

/// Gives each sample its class index, and `data` its classes.
std::optional<DataError> assign_labels(const CsvContext& ctx, const SeriesLabels& labels,
                                       Dataset& data) {
  std::vector<int> index;
  if (auto e = labels.resolve(ctx, data.classes, index)) return e;
  data.target_kind = TargetKind::Class;
  for (std::size_t s = 0; s < index.size(); ++s)
    data.samples[s].label = index[s];
  return std::nullopt;
}

} // namespace

Result<Dataset, DataError> read_long_csv(const CsvContext& ctx) {
  const CsvTable& table = ctx.table();
  LongColumns cols;
  if (auto e = resolve_columns(ctx, cols)) return *e;
  LongRows rows;
  if (auto e = read_rows(ctx, cols, rows)) return *e;
  if (table.rows() == 0)
    return text_error(ctx.file(), table.end_line(), 1,
                      "expected rows after the header, found end of file");
  if (auto e = check_channels_found(ctx, cols.channel, rows)) return *e;

  sort_observations(rows.obs);
  Dataset data;
  data.name = dataset_name(ctx.file());
  if (auto e = fill_samples(ctx, cols, rows, data)) return *e;
  if (cols.label)
    if (auto e = assign_labels(ctx, rows.labels, data)) return *e;
  // A series whose rows were all for channels not asked for has no
  // observation: drop it rather than return an empty series.
  std::erase_if(data.samples, [](const Sample& s) { return s.times.empty(); });
  return data;
}

} // namespace plastic::rt::data_detail
