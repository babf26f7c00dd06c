// Formatting generated C++ in process with Clang's formatting library
// (clang::format::reformat), in the project's own style: the `.clang-format`
// at the top of the source tree, built into the compiler, so `plastic emit
// --cpp` formats the same wherever it runs and without a clang-format binary.
#pragma once

#include <string>

namespace plastic::backend::cpp {

/// `code` formatted in the project's style. Throws plastic::InternalError if
/// Clang cannot format it (the style or the replacements are broken).
std::string format_cpp(const std::string& code, const std::string& file_name = "model.cpp");

} // namespace plastic::backend::cpp
