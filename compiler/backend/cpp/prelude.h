// The text every generated C++ file carries after its `T` and `L`: the lane
// loop pragmas and the loop IR's ops on one lane (compiler/loops/
// loop_scalar_math.h restated for T), with exp, expm1, log, log1p and tanh
// as inline branch-free code the lane loop vectorises — the same algorithms
// and coefficients as the LLVM backend's vector math
// (compiler/backend/llvm/vector_math.h), so both backends round alike.
//
// Internal header of compiler/backend/cpp/: nothing outside that folder includes it.
#pragma once

#include <string_view>

namespace plastic::backend::cpp::detail {

/// The prelude's C++ text (needs <bit>, <cmath>, <cstdint>, <type_traits>).
std::string_view prelude();

} // namespace plastic::backend::cpp::detail
