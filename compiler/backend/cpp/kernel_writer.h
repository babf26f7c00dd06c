// One loop-IR kernel as a C++ function over the lane-interleaved tile.
//
// Every statement of the loop IR becomes one loop over the L lanes of the
// tile, innermost, under `#pragma omp simd`: a varying value is one array
// element per lane, a uniform value a scalar the compiler hoists out of the
// lane loop. With every pointer `__restrict` where the ABI promises no
// aliasing, a C++ compiler at -O2/-O3 turns each lane loop into SIMD
// instructions, the same one-instruction-per-scalar-op shape the LLVM
// backend emits directly. Lane sums (θ gradients) are `reduction(+ : sum)`
// lane loops.
//
// Names: a buffer access that stays inside one named slice of the model's
// layout (a parameter of theta, a state of z, an input of u, an output of
// y) reads through a pointer named after it (`Wk[...]`, `z1_W[...]`);
// scratch buffers and local variables keep their loop-IR names. Each block
// of the loop IR starts with its comment and, when the loop IR knows it, the
// `.ode` line it came from, quoted.
//
// Internal header of compiler/backend/cpp/: nothing outside that folder includes it.
#pragma once

#include <string>
#include <vector>

#include "compiler/abi/layout.h"
#include "compiler/loops/loop_ir.h"

namespace plastic::backend::cpp::detail {

/// What a kernel's text may refer to besides the function itself.
struct KernelContext {
  const abi::ModelLayout* layout = nullptr; ///< named slices; null: raw buffer names only
  std::string source_name;                  ///< the model file's name, for source comments
  std::vector<std::string> source_lines;    ///< its lines (1-based line n is [n - 1])
};

/// The definition `extern "C" void <name>(...) { ... }` of `fn`. The file
/// around it defines `T` (the element type), `L` (the lanes) and the math
/// helpers (emit_cpp.cpp's prelude).
std::string write_kernel(const loops::Function& fn, const KernelContext& context);

/// `extern "C" void <name>__packed(const uint64_t* slots)`: the packed entry
/// of loops/args.h, unpacking one 64-bit slot per parameter.
std::string write_packed_entry(const loops::Function& fn);

/// A C++ identifier for `name` ("ff.w1" -> "ff_w1").
std::string identifier(std::string_view name);

} // namespace plastic::backend::cpp::detail
