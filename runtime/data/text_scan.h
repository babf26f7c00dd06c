// Scanning helpers shared by the text readers (.ts, .psv, CSV): whole-file
// reads, line splitting with line numbers, and strict number parsing.
//
// Numbers go through std::from_chars (locale-free, exact round trip, fast)
// with a thin layer for what the data files actually contain: a leading '+',
// NaN spelled in any case, and a decimal comma for European CSV exports.
// Infinities are rejected: a recorded value is never infinite, and an inf
// that slipped into a file would only surface later as a failed solve.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/data/data_error.h"
#include "runtime/support/trim.h"

namespace plastic::rt::data_detail {

/// Reads the whole file into `out`, reusing its capacity (the PhysioNet
/// reader calls this thousands of times). `shown` names the file in errors.
std::optional<DataError> read_file(const std::filesystem::path& path, const std::string& shown,
                                   std::string& out);

/// Splits text into lines; "\n" and "\r\n" both end a line, and a final line
/// without terminator counts.
class LineReader {
public:
  explicit LineReader(std::string_view text) : text_(text) {}
  /// Next line without its terminator; false at the end of the text.
  bool next(std::string_view& line);
  /// 1-based number of the line last returned by next().
  int64_t line_number() const { return line_number_; }
  /// Line number one past the last line (for "file ends here" errors).
  int64_t end_line() const { return line_number_ + 1; }

private:
  std::string_view text_;
  std::size_t pos_ = 0;
  int64_t line_number_ = 0;
};

/// `s` without leading and trailing spaces, tabs and carriage returns.
inline std::string_view trim(std::string_view s) {
  return trim_blanks(s);
}
/// ASCII case-insensitive equality.
bool iequals(std::string_view a, std::string_view b);
/// ASCII lower case.
std::string to_lower(std::string_view s);

/// How a number token failed to parse.
enum class NumberStatus { Ok, Invalid, Infinite, OutOfRange };

/// Parses the whole of `token` (no surrounding spaces) as a double. NaN in
/// any case gives NaN. With decimal_point == ',' the comma is the decimal
/// separator and a '.' is invalid.
NumberStatus parse_number(std::string_view token, double& out, char decimal_point = '.');

/// "expected <what>, found 'abc'" with the reason when the token looked
/// numeric but was infinite or out of range.
std::string number_message(std::string_view what, NumberStatus status, std::string_view token);

/// The token shown in a message: 'abc' (cut after 24 characters; control
/// bytes written as C writes them, \x03), or the character at `line[pos]`
/// when the token is empty, or "end of line".
std::string found_token(std::string_view token, std::string_view line = {}, std::size_t pos = 0);

/// Byte column (1-based) of `part` inside `line`; `part` must view into `line`.
inline int64_t column_of(std::string_view line, std::string_view part) {
  return static_cast<int64_t>(part.data() - line.data()) + 1;
}

} // namespace plastic::rt::data_detail
