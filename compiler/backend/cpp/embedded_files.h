// Files of the source tree the C++ backend carries inside the compiler, so
// that it formats and compiles the same wherever `plastic` runs (an
// installed compiler has no source tree): the project's `.clang-format` and
// the two headers generated C++ includes (runtime/abi.h, runtime/abi_kernels.def).
// The texts are written by CMake at configure time (compiler/CMakeLists.txt).
//
// Internal header of compiler/backend/cpp/: nothing outside that folder includes it.
#pragma once

#include <string_view>

namespace plastic::backend::cpp::detail {

/// The project's `.clang-format`.
extern const std::string_view kClangFormatStyle;
/// runtime/abi.h and runtime/abi_kernels.def.
extern const std::string_view kAbiHeader;
extern const std::string_view kAbiKernelsDef;
/// Clang's resource folder (its own headers: stddef.h, stdint.h, ...).
extern const std::string_view kClangResourceDir;

} // namespace plastic::backend::cpp::detail
