// Text from a file, made safe to echo in a message: a parser's error quotes
// the bytes it choked on, and a garbage file's bytes (0xff, an ESC that
// starts a terminal escape) must not reach the user's terminal raw.
#pragma once

#include <string>
#include <string_view>

namespace plastic::rt {

/// `text` with every byte outside printable ASCII written as \xNN.
std::string escape_unprintable(std::string_view text);

} // namespace plastic::rt
