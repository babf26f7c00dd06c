// Example models for the model tests (see model_fixture.h).
#include "tests/compiler/abi/model_fixture.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "dsl/frontend.h"

namespace plastic::test {

namespace {
std::string examples_dir() {
  return std::string(PLASTIC_SOURCE_DIR) + "/examples";
}
} // namespace

std::vector<std::string> example_files() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(examples_dir()))
    if (e.path().extension() == ".ode") files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::map<std::string, double> test_overrides(const std::string& file) {
  // The delta CDE keeps a moderate size (it is the benchmark model); the
  // others shrink every width they declare so each compiles in well under a
  // second.
  if (file == "fwp_delta_cde.ode") return {{"heads", 4}, {"d_head", 8}, {"d_ff", 64}};
  static const std::map<std::string, double> shrink = {{"heads", 2}, {"d_head", 4}, {"d_ff", 16},
                                                       {"N", 8},     {"H", 12},     {"hidden", 8},
                                                       {"d_f", 12},  {"d_feat", 6}};
  dsl::DiagnosticEngine diag;
  dsl::CheckResult r = dsl::check_file(examples_dir() + "/" + file, {}, diag);
  if (!r.model) throw std::runtime_error("example does not check: " + file);
  std::map<std::string, double> out;
  for (const dsl::DimValue& d : r.model->dims)
    if (auto it = shrink.find(d.name); it != shrink.end() && !d.is_const) out[d.name] = it->second;
  return out;
}

model::ModelFunctions load_example(const std::string& file,
                                   const std::map<std::string, double>& overrides) {
  model::BuildOptions opts;
  opts.overrides = overrides;
  model::BuildStatus status;
  auto fns = model::build_model_functions(examples_dir() + "/" + file, opts, status);
  if (!fns) throw std::runtime_error("example does not build: " + file);
  return std::move(*fns);
}

model::ModelFunctions load_example(const std::string& file) {
  return load_example(file, test_overrides(file));
}

} // namespace plastic::test
