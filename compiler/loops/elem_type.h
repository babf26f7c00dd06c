// The element type as commands and records name it: one parser for every
// --dtype, run record and Python argument, so that no door falls back to
// f32 where another falls back to f64.
#pragma once

#include <optional>
#include <string_view>

#include "compiler/loops/loop_ir.h"

namespace plastic::loops {

/// "f32" / "float32" and "f64" / "float64"; nullopt for anything else.
std::optional<ElemType> parse_elem_type(std::string_view name);

/// The element type of a name already checked (a command line validated by
/// its --dtype option, a run record read back): an unknown name is a bug,
/// thrown as plastic::InternalError rather than read as either type.
ElemType elem_type(std::string_view name);

} // namespace plastic::loops
