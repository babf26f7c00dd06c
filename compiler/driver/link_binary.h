// Linking a model's object into a standalone executable or a static
// library with the system's tools — the C++ compiler driver ($CXX, else
// `c++`) and the archiver ($AR, else `ar`) — rather than with LLVM's: the
// runtime is C++ compiled by that compiler, and its driver knows the C++
// library, the start files and the linker of this system.
//
// What to link comes from the link manifest that the build writes next to
// `plastic` (cmake/PlasticModelLink.cmake): the model binary's main, the
// runtime and {fmt} as static libraries, and the flags. It is looked up
// relative to the running executable, in the build tree
// (`<dir of plastic>/plastic-model-link.txt`) and in an installed tree
// (`<prefix>/lib/plastic/plastic-model-link.txt`).
#pragma once

#include <string>
#include <vector>

namespace plastic::driver {

/// A program to run and the arguments that always come first ($CXX may be
/// "ccache g++"); empty with `error` set when none is found.
std::vector<std::string> find_tool(const char* env_var, const char* fallback, std::string& error);

/// The items of the link manifest (paths made absolute), or empty with
/// `error` set naming the places looked at.
std::vector<std::string> model_link_items(std::string& error);

/// Runs `argv` with stdout and stderr into `log_path`; the exit status, or
/// -1 when it could not be started.
int run_tool(const std::vector<std::string>& argv, const std::string& log_path);

} // namespace plastic::driver
