// Comma-separated lists in flags and settings ("ln, Wb,Wk", "14:100,28:100",
// "a,b"): one splitter, so every flag that takes a list agrees on spaces
// around the commas and on what an empty item is.
#pragma once

#include <string_view>
#include <vector>

namespace plastic::rt {

/// The items of `text` between commas, trimmed as data cells are
/// (trim_blanks: spaces, tabs, carriage returns). Empty items are kept
/// ("a,,b" has three; "" has one), so that each caller decides whether one
/// is an error or nothing.
std::vector<std::string_view> split_comma_list(std::string_view text);

} // namespace plastic::rt
