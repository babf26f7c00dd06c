// Failures of the data readers and writers, returned as values.
//
// A reader never lets an exception escape and never hands back a partly
// loaded dataset: it returns either the whole result or one DataError that
// says where the input went wrong (file:line:col for text, a byte offset for
// binary files) and what was expected there — a Result<T, DataError> or a
// Status<DataError> (runtime/support/result.h) — in the form compilers use
// so editors can jump to it:
//
//   data.ts:123:45: expected a number or '?', found 'abc'
//   rollout_7.npy: byte 8: unsupported dtype '>f4' (big-endian); ...
#pragma once

#include <cstdint>
#include <string>

#include "runtime/support/result.h"

namespace plastic::rt {

/// Where and why reading (or writing) a data file failed.
struct DataError {
  std::string file;         ///< path as the caller gave it; empty when no file is involved
  int64_t line = 0;         ///< 1-based line of a text file, 0 when not applicable
  int64_t column = 0;       ///< 1-based column (bytes) within `line`, 0 when not applicable
  int64_t byte_offset = -1; ///< offset into a binary file, -1 when not applicable
  std::string message;      ///< what was expected and what was found

  /// "file:line:col: message", "file: byte N: message" or "file: message".
  std::string describe() const;
};

/// Error at a text position.
DataError text_error(std::string file, int64_t line, int64_t column, std::string message);
/// Error at a byte offset of a binary file.
DataError binary_error(std::string file, int64_t byte_offset, std::string message);
/// Error about a whole file (cannot open, empty directory, ...).
DataError file_error(std::string file, std::string message);

} // namespace plastic::rt
