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

struct Observation {
  std::size_t series, channel, row;
  double time, value;
};

} // namespace

Result<Dataset, DataError> read_long_csv(const CsvContext& ctx) {
  const CsvTable& table = ctx.table();
  const CsvOptions& o = ctx.options();
  if (!o.targets.empty())
    return file_error(ctx.file(), "target columns are read in the wide layout only");
  if (o.time_column.empty()) return file_error(ctx.file(), "the long layout needs a time column");
  std::optional<std::size_t> id_col, date_col, label_col;
  std::size_t time_col = 0, channel_col = 0, value_col = 0;
  if (auto e = ctx.optional_column(o.id_column, "series id", id_col)) return *e;
  if (auto e = ctx.column(o.time_column, "time", time_col)) return *e;
  if (auto e = ctx.optional_column(o.date_column, "date", date_col)) return *e;
  if (auto e = ctx.column(o.channel_column, "channel name", channel_col)) return *e;
  if (auto e = ctx.column(o.value_column, "value", value_col)) return *e;
  if (auto e = ctx.optional_column(o.label_column, "class label", label_col)) return *e;

  // Channels: the given list, or every name in order of first appearance.
  std::vector<std::string> channels = o.channels;
  std::unordered_map<std::string, std::size_t> channel_of;
  for (std::size_t c = 0; c < channels.size(); ++c)
    channel_of.emplace(channels[c], c);
  std::vector<std::string> ids;
  std::unordered_map<std::string_view, std::size_t> series_of;
  std::vector<Observation> obs;
  obs.reserve(table.rows());
  SeriesLabels labels;
  for (std::size_t r = 0; r < table.rows(); ++r) {
    std::string_view id;
    if (id_col) {
      id = table.cell(r, *id_col);
      if (id.empty()) return ctx.error(r, *id_col, "expected a series id, found an empty cell");
    }
    const auto [sit, new_series] = series_of.try_emplace(id, ids.size());
    if (new_series) ids.emplace_back(id);
    if (label_col)
      if (auto e = labels.add(ctx, sit->second, r, *label_col)) return *e;
    const std::string name(table.cell(r, channel_col));
    if (name.empty())
      return ctx.error(r, channel_col, "expected a channel name, found an empty cell");
    auto cit = channel_of.find(name);
    if (cit == channel_of.end()) {
      if (!o.channels.empty()) continue; // a channel not asked for
      cit = channel_of.emplace(name, channels.size()).first;
      channels.push_back(name);
    }
    Observation x{sit->second, cit->second, r, 0, 0};
    if (auto e = ctx.time(r, time_col, date_col, x.time)) return *e;
    if (auto e = ctx.value(r, value_col, x.value)) return *e;
    obs.push_back(x);
  }
  if (table.rows() == 0)
    return text_error(ctx.file(), table.end_line(), 1,
                      "expected rows after the header, found end of file");
  for (const std::string& name : o.channels)
    if (std::none_of(obs.begin(), obs.end(),
                     [&](const Observation& x) { return channels[x.channel] == name; }))
      return text_error(ctx.file(), table.header_line(), table.header_column(channel_col),
                        fmt::format("expected channel '{}' in column '{}', found no row for it",
                                    name, o.channel_column));

  std::sort(obs.begin(), obs.end(), [](const Observation& a, const Observation& b) {
    if (a.series != b.series) return a.series < b.series;
    if (a.time != b.time) return a.time < b.time;
    if (a.channel != b.channel) return a.channel < b.channel;
    return a.row < b.row;
  });
  Dataset data;
  data.name = dataset_name(ctx.file());
  for (const std::string& name : channels)
    data.channels.push_back({name});
  const std::size_t c = channels.size();
  data.samples.resize(ids.size());
  for (std::size_t s = 0; s < ids.size(); ++s)
    data.samples[s].id = id_col ? ids[s] : data.name;
  for (std::size_t k = 0; k < obs.size(); ++k) {
    const Observation& x = obs[k];
    Sample& s = data.samples[x.series];
    if (k > 0 && obs[k - 1].series == x.series && obs[k - 1].time == x.time &&
        obs[k - 1].channel == x.channel)
      return ctx.error(
          x.row, value_col,
          fmt::format(
              "expected one value per series, time and channel, found a second value of '{}' at "
              "time {} (the first is on line {})",
              channels[x.channel], x.time, table.line(obs[k - 1].row)));
    if (s.times.empty() || s.times.back() != x.time) {
      s.times.push_back(x.time);
      s.values.resize(s.values.size() + c, std::numeric_limits<double>::quiet_NaN());
    }
    s.values[(s.times.size() - 1) * c + x.channel] = x.value;
  }
  // A series whose rows were all for channels not asked for has no
  // observation: drop it rather than return an empty series.
  std::vector<int> index;
  if (label_col) {
    if (auto e = labels.resolve(ctx, data.classes, index)) return *e;
    data.target_kind = TargetKind::Class;
    for (std::size_t s = 0; s < index.size(); ++s)
      data.samples[s].label = index[s];
  }
  std::erase_if(data.samples, [](const Sample& s) { return s.times.empty(); });
  return data;
}

} // namespace plastic::rt::data_detail
