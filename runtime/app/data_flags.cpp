// Parsing, recording and recalling the data flags (see data_flags.h).
#include "runtime/app/data_flags.h"

#include <array>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "runtime/app/preprocessing.h"
#include "runtime/data/text_scan.h"
#include "runtime/support/comma_list.h"

namespace plastic::rt {

namespace {

// One table of (JSON key / flag name, member), so that writing, reading,
// merging and comparing cannot disagree on the list.
using Member = std::string DataFlags::*;
constexpr std::array<std::pair<const char*, Member>, 12> kFields = {{
    {"target", &DataFlags::target},
    {"label", &DataFlags::label},
    {"time", &DataFlags::time},
    {"date-order", &DataFlags::date_order},
    {"channels", &DataFlags::channels},
    {"id", &DataFlags::id},
    {"static", &DataFlags::statics},
    {"window", &DataFlags::window},
    {"period", &DataFlags::period},
    {"sep", &DataFlags::sep},
    {"decimal", &DataFlags::decimal},
    {"missing", &DataFlags::missing},
}};

AppError usage(const std::string& flag, const std::string& message) {
  return AppError{kUsageError, fmt::format("--{}: {}", flag, message)};
}

// "a, b,c" -> {"a", "b", "c"}; an empty name is an error.
Result<std::vector<std::string>, AppError> names(const std::string& flag, const std::string& text) {
  std::vector<std::string> out;
  for (std::string_view part : split_comma_list(text)) {
    if (part.empty())
      return usage(flag, fmt::format("expected comma-separated column names, found '{}'", text));
    out.emplace_back(part);
  }
  return out;
}

Result<double, AppError> number(const std::string& flag, const std::string& text) {
  double v = 0;
  if (data_detail::parse_number(data_detail::trim(text), v) != data_detail::NumberStatus::Ok ||
      !std::isfinite(v))
    return usage(flag, fmt::format("expected a finite number, found '{}'", text));
  return v;
}

} // namespace

nlohmann::json data_flags_json(const DataFlags& flags) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [key, member] : kFields)
    if (!(flags.*member).empty()) j[key] = flags.*member;
  return j;
}

Result<DataFlags, AppError> data_flags_from_json(const nlohmann::json& j) {
  DataFlags flags;
  if (!j.is_object()) return AppError{kInputError, "the recorded data flags are not an object"};
  for (const auto& [key, value] : j.items()) {
    bool known = false;
    for (const auto& [name, member] : kFields)
      if (key == name && value.is_string()) {
        flags.*member = value.get<std::string>();
        known = true;
      }
    if (!known)
      return AppError{kInputError,
                      fmt::format("the recorded data flag '{}' is not understood here", key)};
  }
  return flags;
}

Status<AppError> apply_data_flags(const DataFlags& f, DataOptions& o) {
  CsvOptions& csv = o.csv;
  SeriesShaping& shaping = o.shaping;
  if (f.target == "next") {
    shaping.target_next = true;
  } else if (!f.target.empty()) {
    auto t = names("target", f.target);
    if (!t) return t.error();
    csv.targets = std::move(t.value());
  }
  csv.label_column = f.label;
  if (!f.time.empty()) {
    auto t = names("time", f.time);
    if (!t) return t.error();
    if (t->size() > 2)
      return usage("time", "expected one time column, or a date column and a clock-time column "
                           "(e.g. Date,Time)");
    csv.time_column = t->back();
    if (t->size() == 2) csv.date_column = t->front();
  }
  if (f.date_order == "mdy")
    csv.date_order = DateOrder::MonthDayYear;
  else if (f.date_order == "ymd")
    csv.date_order = DateOrder::YearMonthDay;
  else if (!f.date_order.empty() && f.date_order != "dmy")
    return usage("date-order", fmt::format("expected dmy, mdy or ymd, found '{}'", f.date_order));
  if (!f.channels.empty()) {
    auto c = names("channels", f.channels);
    if (!c) return c.error();
    csv.channels = std::move(c.value());
  }
  csv.id_column = f.id;
  if (!f.statics.empty()) {
    auto s = names("static", f.statics);
    if (!s) return s.error();
    shaping.statics = std::move(s.value());
  }
  if (!f.window.empty()) {
    auto w = number("window", f.window);
    if (!w) return w.error();
    if (*w < 2 || *w > 1e9 || std::floor(*w) != *w)
      return usage("window", fmt::format("expected a whole number of observations >= 2, found '{}'",
                                         f.window));
    shaping.window = static_cast<int64_t>(*w);
  }
  if (!f.period.empty()) {
    auto p = number("period", f.period);
    if (!p) return p.error();
    if (!(*p > 0))
      return usage("period", fmt::format("expected a positive number, found '{}'", f.period));
    shaping.period = *p;
  }
  if (f.sep == "tab" || f.sep == "\\t")
    csv.separator = '\t';
  else if (f.sep.size() == 1 && f.sep != "\"" && f.sep != "\n")
    csv.separator = f.sep[0];
  else if (!f.sep.empty())
    return usage("sep", fmt::format("expected one character or 'tab', found '{}'", f.sep));
  if (f.decimal == ",")
    csv.decimal_point = ',';
  else if (!f.decimal.empty() && f.decimal != ".")
    return usage("decimal", fmt::format("expected '.' or ',', found '{}'", f.decimal));
  if (csv.decimal_point == ',' && f.sep.empty()) csv.separator = ';'; // the European convention
  if (csv.decimal_point == csv.separator)
    return usage("sep",
                 fmt::format("the separator and the decimal point are both '{}'", csv.separator));
  if (!f.missing.empty()) {
    auto m = number("missing", f.missing);
    if (!m) return m.error();
    csv.missing_value = *m;
  }
  return {};
}

Status<AppError> recall_data_flags(const std::filesystem::path& run_dir, RecordedFlags how,
                                   DataFlags& flags) {
  auto record = read_preprocessing(run_dir);
  if (!record) return record.error();
  if (!record.value()) return {};
  const DataFlags& recorded = record.value()->data_flags;
  for (const auto& [key, member] : kFields) {
    const std::string& was = recorded.*member;
    std::string& now = flags.*member;
    if (how == RecordedFlags::Resume && !now.empty() && now != was)
      return AppError{
          kUsageError,
          fmt::format("--{} {}: the run in {} read its data with {}; --resume reads it the same "
                      "way (leave the flag out)",
                      key, now, run_dir.string(),
                      was.empty() ? std::string("no --") + key
                                  : "--" + std::string(key) + " " + was)};
    if (now.empty()) now = was;
  }
  return {};
}

} // namespace plastic::rt
