// CSV tokeniser (see csv_table.h).
#include "runtime/data/csv_table.h"

#include <fmt/format.h>

#include "runtime/data/text_scan.h"

namespace plastic::rt::data_detail {
namespace {

struct RawCell {
  std::size_t offset, length;
  int64_t column;
};

bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

std::string shown_separator(char separator) {
  if (separator == '\t') return "tab";
  return fmt::format("'{}'", separator);
}

// Splits the line [begin, end) of `text` into cells, unescaping quoted ones
// in place. Returns an error message and sets `error_column` on failure.
std::string split_line(std::string& text, std::size_t begin, std::size_t end, char separator,
                       std::vector<RawCell>& out, int64_t& error_column) {
  out.clear();
  std::size_t pos = begin;
  for (;;) {
    while (pos < end && blank(text[pos]) && text[pos] != separator)
      ++pos;
    const int64_t column = static_cast<int64_t>(pos - begin) + 1;
    if (pos < end && text[pos] == '"') {
      const std::size_t start = pos + 1;
      std::size_t write = start;
      std::size_t read = start;
      for (;;) {
        if (read >= end) {
          error_column = column;
          return "expected a closing '\"' for the quoted cell opened here, found end of line";
        }
        if (text[read] == '"') {
          if (read + 1 < end && text[read + 1] == '"') {
            text[write++] = '"';
            read += 2;
            continue;
          }
          break;
        }
        text[write++] = text[read++];
      }
      out.push_back({start, write - start, column});
      pos = read + 1;
      while (pos < end && blank(text[pos]) && text[pos] != separator)
        ++pos;
      if (pos < end && text[pos] != separator) {
        error_column = static_cast<int64_t>(pos - begin) + 1;
        return fmt::format(
            "expected the separator {} or end of line after a closing quote, found '{}'",
            shown_separator(separator), text[pos]);
      }
    } else {
      std::size_t stop = pos;
      while (stop < end && text[stop] != separator)
        ++stop;
      std::size_t last = stop;
      while (last > pos && blank(text[last - 1]))
        --last;
      out.push_back({pos, last - pos, column});
      pos = stop;
    }
    if (pos >= end) return {};
    ++pos; // past the separator: another cell follows, possibly empty
  }
}

} // namespace

Result<CsvTable, DataError> tokenize_csv(std::string text, const std::string& file,
                                         char separator) {
  CsvTable table;
  table.text_ = std::move(text);
  std::string& buf = table.text_;
  std::vector<RawCell> cells;
  std::size_t pos = 0;
  int64_t line = 0;
  bool have_header = false;
  while (pos < buf.size()) {
    std::size_t end = buf.find('\n', pos);
    const std::size_t next = end == std::string::npos ? buf.size() : end + 1;
    if (end == std::string::npos) end = buf.size();
    if (end > pos && buf[end - 1] == '\r') --end;
    ++line;
    const std::string_view view = std::string_view(buf).substr(pos, end - pos);
    if (trim(view).empty()) {
      pos = next;
      continue;
    }
    int64_t error_column = 0;
    const std::string message = split_line(buf, pos, end, separator, cells, error_column);
    if (!message.empty()) return text_error(file, line, error_column, message);
    if (!have_header) {
      have_header = true;
      table.header_line_ = line;
      for (const RawCell& c : cells) {
        std::string name = buf.substr(c.offset, c.length);
        for (std::size_t k = 0; k < table.header_.size(); ++k)
          if (!name.empty() && table.header_[k] == name)
            return text_error(
                file, line, c.column,
                fmt::format("column '{}' appears twice in the header (first at column {})", name,
                            table.header_columns_[k]));
        table.header_.push_back(std::move(name));
        table.header_columns_.push_back(c.column);
      }
    } else {
      const std::size_t want = table.header_.size();
      if (cells.size() != want) {
        const int64_t column =
            cells.size() < want ? static_cast<int64_t>(end - pos) + 1 : cells[want].column;
        return text_error(file, line, column,
                          fmt::format("expected {} cells as in the header (line {}), found {}",
                                      want, table.header_line_, cells.size()));
      }
      for (const RawCell& c : cells)
        table.cells_.push_back({c.offset, c.length, c.column});
      table.lines_.push_back(line);
    }
    pos = next;
  }
  table.end_line_ = line + 1;
  if (!have_header)
    return text_error(file, 1, 1, "expected a header line naming the columns, found end of file");
  return table;
}

} // namespace plastic::rt::data_detail
