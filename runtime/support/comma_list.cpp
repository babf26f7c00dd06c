// Comma-separated lists (see comma_list.h).
#include "runtime/support/comma_list.h"

#include "runtime/support/trim.h"

namespace plastic::rt {

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
