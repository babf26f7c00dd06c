// escape_unprintable (see printable.h).
#include "runtime/support/printable.h"

#include <fmt/format.h>

namespace plastic::rt {

std::string escape_unprintable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f)
      out += c;
    else
      out += fmt::format("\\x{:02x}", byte);
  }
  return out;
}

} // namespace plastic::rt
