// Shared CSV cell rules, and the read_csv entry points (see csv_common.h,
// csv_reader.h).
#include "runtime/data/csv_common.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <filesystem>
#include <limits>

#include <fmt/format.h>

#include "runtime/data/datetime.h"
#include "runtime/data/text_scan.h"

namespace plastic::rt {
namespace data_detail {

DataError CsvContext::error(std::size_t r, std::size_t c, std::string message) const {
  return text_error(file_, table_.line(r), table_.column(r, c), std::move(message));
}

std::optional<DataError> CsvContext::column(const std::string& name, std::string_view role,
                                            std::size_t& out) const {
  const auto& header = table_.header();
  for (std::size_t c = 0; c < header.size(); ++c)
    if (!name.empty() && header[c] == name) {
      out = c;
      return std::nullopt;
    }
  std::string known;
  for (const std::string& h : header)
    if (!h.empty()) known += (known.empty() ? "'" : ", '") + h + "'";
  return text_error(
      file_, table_.header_line(), 1,
      fmt::format("expected a column '{}' ({}) in the header, found only {}", name, role, known));
}

std::optional<DataError> CsvContext::optional_column(const std::string& name, std::string_view role,
                                                     std::optional<std::size_t>& out) const {
  out.reset();
  if (name.empty()) return std::nullopt;
  std::size_t c = 0;
  if (auto e = column(name, role, c)) return e;
  out = c;
  return std::nullopt;
}

std::optional<DataError> CsvContext::value(std::size_t r, std::size_t c, double& out) const {
  const std::string_view cell = table_.cell(r, c);
  for (const std::string& marker : options_.missing_markers)
    if (cell == marker) {
      out = std::numeric_limits<double>::quiet_NaN();
      return std::nullopt;
    }
  const NumberStatus status = parse_number(cell, out, options_.decimal_point);
  if (status != NumberStatus::Ok) {
    const std::string what =
        options_.missing_markers.empty() ? "a number" : "a number or a missing-value marker";
    return error(r, c,
                 cell.empty() ? fmt::format("expected {}, found an empty cell", what)
                              : number_message(what, status, cell));
  }
  if (options_.missing_value && out == *options_.missing_value)
    out = std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}

std::optional<DataError> CsvContext::time(std::size_t r, std::size_t time_col,
                                          std::optional<std::size_t> date_col, double& out) const {
  const std::string_view cell = table_.cell(r, time_col);
  if (date_col) {
    const std::string_view date = table_.cell(r, *date_col);
    const auto days = parse_date_days(date, options_.date_order);
    if (!days) {
      const char* order = options_.date_order == DateOrder::DayMonthYear   ? "day/month/year"
                          : options_.date_order == DateOrder::MonthDayYear ? "month/day/year"
                                                                           : "year-month-day";
      return error(r, *date_col,
                   fmt::format("expected a date ({}), found {}", order,
                               date.empty() ? std::string("an empty cell") : found_token(date)));
    }
    const auto hours = parse_clock_hours(cell);
    if (!hours)
      return error(r, time_col,
                   fmt::format("expected a clock time HH:MM[:SS], found {}",
                               cell.empty() ? std::string("an empty cell") : found_token(cell)));
    out = *days * 24.0 + *hours;
    return std::nullopt;
  }
  if (parse_number(cell, out, options_.decimal_point) == NumberStatus::Ok && !std::isnan(out))
    return std::nullopt;
  if (const auto hours = parse_iso_datetime_hours(cell)) {
    out = *hours;
    return std::nullopt;
  }
  return error(r, time_col,
               fmt::format("expected a time (a number or YYYY-MM-DD HH:MM:SS), found {}",
                           cell.empty() ? std::string("an empty cell") : found_token(cell)));
}

std::optional<DataError> SeriesLabels::add(const CsvContext& ctx, std::size_t s, std::size_t r,
                                           std::size_t c) {
  const std::string_view label = ctx.table().cell(r, c);
  if (label.empty()) return ctx.error(r, c, "expected a class label, found an empty cell");
  if (s >= series_.size()) series_.resize(s + 1);
  Seen& seen = series_[s];
  if (seen.label.empty()) {
    seen = {std::string(label), r, c};
    return std::nullopt;
  }
  if (seen.label == label) return std::nullopt;
  return ctx.error(r, c,
                   fmt::format("expected the label '{}' given to this series on line {}, found {}",
                               seen.label, ctx.table().line(seen.row), found_token(label)));
}

std::optional<DataError> SeriesLabels::resolve(const CsvContext& ctx,
                                               std::vector<std::string>& classes,
                                               std::vector<int>& labels) const {
  classes = ctx.options().classes;
  if (classes.empty()) {
    for (const Seen& s : series_)
      classes.push_back(s.label);
    std::sort(classes.begin(), classes.end());
    classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
    // Numbers sort as numbers ("2" before "10"), so class indices do not
    // depend on how the labels were spelt.
    std::vector<double> keys(classes.size());
    bool numeric = true;
    for (std::size_t i = 0; i < classes.size() && numeric; ++i)
      numeric = parse_number(classes[i], keys[i]) == NumberStatus::Ok && !std::isnan(keys[i]);
    if (numeric) {
      std::vector<std::size_t> order(classes.size());
      for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
      std::vector<std::string> sorted;
      sorted.reserve(order.size());
      for (std::size_t i : order)
        sorted.push_back(classes[i]);
      classes = std::move(sorted);
    }
  }
  labels.clear();
  for (const Seen& s : series_) {
    const auto it = std::find(classes.begin(), classes.end(), s.label);
    if (it == classes.end()) {
      std::string known;
      for (const std::string& c : classes)
        known += " " + c;
      return ctx.error(s.row, s.column,
                       fmt::format("unknown class label {}; the classes given are:{}",
                                   found_token(s.label), known));
    }
    labels.push_back(static_cast<int>(it - classes.begin()));
  }
  return std::nullopt;
}

std::string dataset_name(const std::string& file) {
  return std::filesystem::path(file).stem().string();
}

} // namespace data_detail

Result<Dataset, DataError> parse_csv(std::string text, const std::string& file_name,
                                     const CsvOptions& options) {
  try {
    if (options.decimal_point == options.separator)
      return file_error(file_name, fmt::format("the decimal point and the separator are both '{}'",
                                               options.separator));
    auto table = data_detail::tokenize_csv(std::move(text), file_name, options.separator);
    if (!table) return table.error();
    const data_detail::CsvContext ctx(*table, file_name, options);
    return options.layout == CsvLayout::Wide ? data_detail::read_wide_csv(ctx)
                                             : data_detail::read_long_csv(ctx);
  } catch (const std::exception& e) { // only allocation failure can get here
    return file_error(file_name, fmt::format("internal error while reading: {}", e.what()));
  }
}

Result<Dataset, DataError> read_csv(const std::filesystem::path& file, const CsvOptions& options) {
  const std::string shown = file.string();
  std::string text;
  try {
    if (auto e = data_detail::read_file(file, shown, text)) return *e;
  } catch (const std::exception& e) {
    return file_error(shown, fmt::format("internal error while reading: {}", e.what()));
  }
  return parse_csv(std::move(text), shown, options);
}

} // namespace plastic::rt
