// Shared by the model tests: the example models (shrunk where large so the
// suite stays fast) loaded through the compiler's front end.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/model/model_functions.h"

namespace plastic::test {

/// File names of every model in examples/ (sorted).
std::vector<std::string> example_files();
/// The --set overrides a test uses for `file` (empty: default dims).
std::map<std::string, double> test_overrides(const std::string& file);
/// build_model_functions on examples/<file> with test_overrides (or `overrides`).
model::ModelFunctions load_example(const std::string& file);
model::ModelFunctions load_example(const std::string& file,
                                   const std::map<std::string, double>& overrides);

} // namespace plastic::test
