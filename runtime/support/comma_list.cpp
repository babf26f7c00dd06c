// Comma-separated lists (see comma_list.h).
#include "runtime/support/comma_list.h"

namespace plastic::rt {

namespace {

std::string_view trim_blanks(std::string_view s) {
  // A carriage return too: the last argument of a line of a CRLF script.
  const size_t first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

} // namespace

std::vector<std::string_view> split_comma_list(std::string_view text) {
  std::vector<std::string_view> items;
  for (;;) {
    const size_t comma = text.find(',');
    items.push_back(trim_blanks(text.substr(0, comma)));
    if (comma == std::string_view::npos) return items;
    text.remove_prefix(comma + 1);
  }
}

} // namespace plastic::rt
