// Splitting CSV text into a header and rows of cells, remembering where each
// cell came from so the CSV readers can report file:line:col.
//
// The dialect is RFC 4180's, one record per line: a separator character,
// optional double quotes around a cell ("" inside quotes is one quote),
// blanks around cells ignored, "\n" or "\r\n" line ends, blank lines
// skipped. A trailing separator gives a last empty cell (as in the cascaded
// tanks benchmark, whose header ends with an unnamed column); every row must
// have as many cells as the header. Internal to runtime/data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/data/data_error.h"

namespace plastic::rt::data_detail {

/// A tokenised CSV file. Owns the text its cells point into.
class CsvTable {
public:
  /// Header names (unquoted, trimmed; may be empty for an unnamed column).
  const std::vector<std::string>& header() const { return header_; }
  int64_t header_line() const { return header_line_; }
  /// Column (1-based byte position) of header cell `c`.
  int64_t header_column(std::size_t c) const { return header_columns_[c]; }
  std::size_t columns() const { return header_.size(); }
  std::size_t rows() const { return lines_.size(); }
  /// Line number of row `r`.
  int64_t line(std::size_t r) const { return lines_[r]; }
  /// Text of cell (r, c): unquoted and trimmed.
  std::string_view cell(std::size_t r, std::size_t c) const {
    const Cell& x = cells_[r * header_.size() + c];
    return std::string_view(text_).substr(x.offset, x.length);
  }
  /// Column (1-based) where cell (r, c) starts.
  int64_t column(std::size_t r, std::size_t c) const {
    return cells_[r * header_.size() + c].column;
  }
  /// Line just after the last one (for "file ends here" errors).
  int64_t end_line() const { return end_line_; }

private:
  friend Result<CsvTable, DataError> tokenize_csv(std::string text, const std::string& file,
                                                  char separator);
  struct Cell {
    std::size_t offset, length; // offsets, not views: the table may be moved
    int64_t column;
  };
  std::string text_;
  std::vector<std::string> header_;
  std::vector<int64_t> header_columns_;
  std::vector<Cell> cells_;
  std::vector<int64_t> lines_;
  int64_t header_line_ = 0;
  int64_t end_line_ = 1;
};

/// Tokenises `text` (taken over: quoted cells are unescaped in place).
/// Errors: no header, unterminated quote, text after a closing quote, a row
/// with the wrong number of cells, a header name used twice.
Result<CsvTable, DataError> tokenize_csv(std::string text, const std::string& file, char separator);

} // namespace plastic::rt::data_detail
