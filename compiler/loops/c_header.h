// C header for the kernels of an AOT object file.
//
// Declares each function of a loop module with its exact C signature
// (pointers as `void*`/`const void*`, scalars as `double`, as in
// runtime/abi.h so kernels can be stored in a plastic_kernels table), and
// documents per kernel the element type, the tile width L, every buffer's
// size and role, and the scratch bytes — also as enum constants
// `<name>_lanes` and `<name>_scratch_bytes` for callers to allocate with.
#pragma once

#include <string>

#include "compiler/loops/loop_ir.h"

namespace plastic::loops {

/// The header text. `guard` is the include-guard macro; empty derives one
/// from the module name. With `packed_entries`, also declares the
/// `<name>__packed(const uint64_t*)` entry points (see args.h).
std::string c_header(const Module& module, std::string guard = {}, bool packed_entries = false);

/// The C prototype of one function, without the trailing semicolon.
std::string c_prototype(const Function& fn);

} // namespace plastic::loops
