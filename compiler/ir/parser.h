// The IR parser: reads the text of printer.h back into a Function.
//
// Nodes are re-created exactly as written (Context::make after type-checking
// each instruction), not through the simplifying factories, so that
// print(parse(print(f))) == print(f) and, parsed into the Context that holds
// f, the outputs are f's very nodes. Errors are IRErrors located in the text
// (file name "<ir>" unless given).
#pragma once

#include <string_view>
#include <vector>

#include "compiler/ir/function.h"

namespace plastic::ir {

/// Parses one `func`; throws IRError on malformed or ill-typed text.
Function parse_function(Context& ctx, std::string_view text, std::string_view file = "<ir>");
/// Parses every `func` of the text, in order.
std::vector<Function> parse_functions(Context& ctx, std::string_view text,
                                      std::string_view file = "<ir>");

} // namespace plastic::ir
