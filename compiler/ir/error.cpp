// Error types of the compiler core (see error.h).
#include "compiler/ir/error.h"

namespace plastic::ir {

IRError::IRError(const std::string& message, SourceLoc loc)
    : std::runtime_error(message), loc_(loc) {}

std::string IRError::describe() const {
  if (!loc_.valid()) return fmt::format("error: {}", what());
  return fmt::format("{}:{}:{}: error: {}", loc_.file, loc_.line, loc_.col, what());
}

} // namespace plastic::ir
