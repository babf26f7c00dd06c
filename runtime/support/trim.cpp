// Blanks around a token (see trim.h).
#include "runtime/support/trim.h"

namespace plastic::rt {

std::string_view trim_blanks(std::string_view s) {
  const size_t first = s.find_first_not_of(" \t\r");
  // An all-blank token stays a view into `s` (at its end): the readers
  // locate errors by where a token sits in its line.
  if (first == std::string_view::npos) return s.substr(s.size());
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

} // namespace plastic::rt
