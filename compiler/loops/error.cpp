// Error types of the code generator; see error.h.
#include "compiler/loops/error.h"

#include <cstring>

namespace plastic::loops {

InternalError::InternalError(const std::string& message)
    : std::logic_error("internal error (this is a bug in Plastic, please report it): " + message) {}

void internal_error(const char* file, int line, const std::string& message) {
  // Keep only the path below the project root: stable messages, short logs.
  const char* rel = std::strstr(file, "compiler/");
  throw InternalError(fmt::format("{}:{}: {}", rel ? rel : file, line, message));
}

}  // namespace plastic::loops
