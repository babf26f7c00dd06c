// Formatting of data-reader failures (see data_error.h).
#include "runtime/data/data_error.h"

#include <fmt/format.h>

namespace plastic::rt {

std::string DataError::describe() const {
  if (line > 0 && column > 0) return fmt::format("{}:{}:{}: {}", file, line, column, message);
  if (line > 0) return fmt::format("{}:{}: {}", file, line, message);
  if (byte_offset >= 0) return fmt::format("{}: byte {}: {}", file, byte_offset, message);
  if (file.empty()) return message;
  return fmt::format("{}: {}", file, message);
}

DataError text_error(std::string file, int64_t line, int64_t column, std::string message) {
  DataError e;
  e.file = std::move(file);
  e.line = line;
  e.column = column;
  e.message = std::move(message);
  return e;
}

DataError binary_error(std::string file, int64_t byte_offset, std::string message) {
  DataError e;
  e.file = std::move(file);
  e.byte_offset = byte_offset;
  e.message = std::move(message);
  return e;
}

DataError file_error(std::string file, std::string message) {
  DataError e;
  e.file = std::move(file);
  e.message = std::move(message);
  return e;
}

} // namespace plastic::rt
