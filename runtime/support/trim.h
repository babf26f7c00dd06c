// Blanks around a token: what the data readers strip from a cell and the
// flags from a list item, one definition for both.
#pragma once

#include <string_view>

namespace plastic::rt {

/// `s` without leading and trailing spaces, tabs and carriage returns (the
/// end of a line of a CRLF file or script); a view into `s`, empty at its
/// end when `s` is all blanks.
std::string_view trim_blanks(std::string_view s);

} // namespace plastic::rt
