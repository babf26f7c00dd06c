// Dates and clock times to hours (see datetime.h).
#include "runtime/data/datetime.h"

#include <charconv>
#include <chrono>

#include "runtime/data/text_scan.h"

namespace plastic::rt::data_detail {
namespace {

// Reads an unsigned integer of 1..max_digits digits at the front of `s`.
std::optional<int> take_int(std::string_view& s, std::size_t max_digits) {
  std::size_t n = 0;
  while (n < s.size() && n < max_digits && s[n] >= '0' && s[n] <= '9')
    ++n;
  if (n == 0) return std::nullopt;
  int value = 0;
  // NOLINTNEXTLINE(bugprone-suspicious-stringview-data-usage): from_chars takes the end too
  std::from_chars(s.data(), s.data() + n, value);
  s.remove_prefix(n);
  return value;
}

bool take_char(std::string_view& s, std::string_view allowed) {
  if (s.empty() || allowed.find(s.front()) == std::string_view::npos) return false;
  s.remove_prefix(1);
  return true;
}

std::optional<double> civil_days(int y, int m, int d) {
  using namespace std::chrono;
  const year_month_day date{year{y}, month{static_cast<unsigned>(m)},
                            day{static_cast<unsigned>(d)}};
  if (m < 1 || d < 1 || !date.ok()) return std::nullopt;
  return static_cast<double>(sys_days{date}.time_since_epoch().count());
}

} // namespace

std::optional<double> parse_date_days(std::string_view text, DateOrder order) {
  text = trim(text);
  int parts[3];
  const std::size_t widths[3] = {order == DateOrder::YearMonthDay ? 4u : 2u, 2u,
                                 order == DateOrder::YearMonthDay ? 2u : 4u};
  for (int i = 0; i < 3; ++i) {
    const auto v = take_int(text, widths[i]);
    if (!v) return std::nullopt;
    parts[i] = *v;
    if (i < 2 && !take_char(text, "/-.")) return std::nullopt;
  }
  if (!text.empty()) return std::nullopt;
  switch (order) {
  case DateOrder::DayMonthYear:
    return civil_days(parts[2], parts[1], parts[0]);
  case DateOrder::MonthDayYear:
    return civil_days(parts[2], parts[0], parts[1]);
  case DateOrder::YearMonthDay:
    return civil_days(parts[0], parts[1], parts[2]);
  }
  return std::nullopt;
}

std::optional<double> parse_clock_hours(std::string_view text) {
  text = trim(text);
  const auto h = take_int(text, 2);
  if (!h || !take_char(text, ":.")) return std::nullopt;
  const auto m = take_int(text, 2);
  if (!m) return std::nullopt;
  double seconds = 0;
  if (!text.empty()) {
    if (!take_char(text, ":.")) return std::nullopt;
    if (parse_number(text, seconds) != NumberStatus::Ok || !(seconds >= 0 && seconds < 61))
      return std::nullopt;
  }
  if (*h > 24 || *m > 59) return std::nullopt;
  return *h + *m / 60.0 + seconds / 3600.0;
}

std::optional<double> parse_iso_datetime_hours(std::string_view text) {
  text = trim(text);
  const std::size_t split = text.find_first_of(" T");
  const auto days = parse_date_days(text.substr(0, split), DateOrder::YearMonthDay);
  if (!days) return std::nullopt;
  if (split == std::string_view::npos) return *days * 24.0;
  const auto clock = parse_clock_hours(text.substr(split + 1));
  if (!clock) return std::nullopt;
  return *days * 24.0 + *clock;
}

} // namespace plastic::rt::data_detail
