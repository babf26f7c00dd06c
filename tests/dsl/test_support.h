// Helpers shared by the front-end tests: paths to the source tree and
// shortcuts to check source text.
#pragma once

#include "dsl/frontend.h"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace plastic::test {

inline std::filesystem::path source_dir() {
  return PLASTIC_SOURCE_DIR;
}

/// Every `*.ode` file under a folder of the source tree, sorted.
inline std::vector<std::filesystem::path> ode_files(const std::string& folder) {
  std::vector<std::filesystem::path> out;
  for (auto& e : std::filesystem::recursive_directory_iterator(source_dir() / folder))
    if (e.path().extension() == ".ode") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

/// Checks a model given as text; returns the rendered diagnostics.
inline std::string check_text(const std::string& text, dsl::CheckResult* result = nullptr,
                              dsl::CheckOptions options = {}) {
  dsl::DiagnosticEngine diag;
  dsl::CheckResult r = dsl::check_source("test.ode", text, options, diag);
  std::ostringstream os;
  diag.render(os);
  if (result) *result = std::move(r);
  return os.str();
}

} // namespace plastic::test
