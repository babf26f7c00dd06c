// Calendar dates and clock times in data files, turned into plain numbers.
//
// Every reader uses one convention for wall-clock time stamps: hours since
// 1970-01-01 00:00, with no time zone (the files carry none). Hours because
// the data sets here are hourly (ICU stays, air quality), so one observation
// step is one time unit, as ICULOS is for PhysioNet. Calendar arithmetic is
// std::chrono's (C++20 civil calendar), which also rejects 2005-02-30.
#pragma once

#include <optional>
#include <string_view>

namespace plastic::rt {

/// How the day, month and year of a date like 10/03/2004 are ordered.
enum class DateOrder { DayMonthYear, MonthDayYear, YearMonthDay };

namespace data_detail {

/// Days since 1970-01-01 of a date "D/M/YYYY" (order per `order`; separators
/// '/', '-' or '.'), or nullopt if it is not a valid date.
std::optional<double> parse_date_days(std::string_view text, DateOrder order);

/// Hours since midnight of "HH:MM" or "HH:MM:SS[.fff]" (also "HH.MM.SS",
/// the UCI air-quality original), or nullopt.
std::optional<double> parse_clock_hours(std::string_view text);

/// Hours since 1970-01-01 00:00 of an ISO-like "YYYY-MM-DD[( |T)HH:MM[:SS]]",
/// or nullopt.
std::optional<double> parse_iso_datetime_hours(std::string_view text);

} // namespace data_detail
} // namespace plastic::rt
