// Error types of the compiler core (see error.h).
#include "compiler/ir/error.h"

namespace plastic::ir {

IRError::IRError(const std::string& message, SourceLoc loc)
    : std::runtime_error(message), loc_(loc) {}

std::string IRError::describe() const {
  if (!loc_.valid()) return fmt::format("error: {}", what());
  return fmt::format("{}:{}:{}: error: {}", loc_.file, loc_.line, loc_.col, what());
}

InternalError::InternalError(const std::string& message)
    : std::logic_error("internal compiler error (this is a bug in Plastic, please report it): " +
                       message) {}

void internal_error(const char* file, int line, const std::string& message) {
  throw InternalError(fmt::format("{} [{}:{}]", message, file, line));
}

} // namespace plastic::ir
