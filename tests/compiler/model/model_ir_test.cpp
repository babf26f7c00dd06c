// The IR of real models: golden text for a few zoo models (so a change in
// lowering, autodiff or the passes shows up as a readable diff), and the
// print -> parse round trip for every function of every zoo model.
//
// Golden files live in tests/compiler/model/golden/<model>.ir and hold the
// `plastic emit --ir` text of the model at small dims. After an intended
// change, regenerate them with PLASTIC_UPDATE_GOLDEN=1 and review the diff.
#include <catch2/catch.hpp>

#include "compiler/ir/ir.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/model/model_functions.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace plastic;

namespace {

std::optional<model::ModelFunctions> build(const std::string& file,
                                           std::map<std::string, double> overrides = {}) {
  model::BuildStatus status{};
  model::BuildOptions options;
  options.overrides = std::move(overrides);
  return model::build_model_functions(PLASTIC_SOURCE_DIR "/examples/" + file, options, status);
}

std::string primal_text(const model::ModelFunctions& fns) {
  std::string text;
  for (const auto& f : fns.primal)
    text += ir::print(f.fn) + "\n";
  return text;
}

} // namespace

TEST_CASE("golden IR of small zoo models", "[golden]") {
  struct Case {
    std::string file;
    std::map<std::string, double> dims;
  };
  for (const Case& c :
       {Case{"fwp_delta_cde.ode", {{"heads", 2}, {"d_head", 3}, {"d_ff", 6}, {"d_in", 4}}},
        Case{"ncde_character.ode", {{"hidden", 3}, {"d_f", 5}, {"classes", 2}}},
        Case{"gnode_flipflop_n3.ode", {{"H", 4}}}}) {
    auto fns = build(c.file, c.dims);
    REQUIRE(fns);
    std::string text = primal_text(*fns);
    std::filesystem::path golden = std::filesystem::path(PLASTIC_SOURCE_DIR) /
                                   "tests/compiler/model/golden" /
                                   (std::filesystem::path(c.file).stem().string() + ".ir");
    if (std::getenv("PLASTIC_UPDATE_GOLDEN")) std::ofstream(golden) << text;
    std::ifstream in(golden);
    INFO("missing golden file " << golden << " (PLASTIC_UPDATE_GOLDEN=1 writes it)");
    REQUIRE(in.good());
    std::stringstream expected;
    expected << in.rdbuf();
    CHECK(text == expected.str());
  }
}

TEST_CASE("every function of every zoo model prints and parses back", "[printer][parser]") {
  for (const auto& entry : std::filesystem::directory_iterator(PLASTIC_SOURCE_DIR "/examples")) {
    if (entry.path().extension() != ".ode") continue;
    auto fns = build(entry.path().filename().string());
    INFO(entry.path());
    REQUIRE(fns);
    for (const model::NamedFunction* f : fns->functions()) {
      std::string text = ir::print(f->fn);
      ir::Context fresh;
      CHECK(ir::print(ir::parse_function(fresh, text)) == text);
      // Parsed into the Context that holds f: the very same nodes.
      CHECK(ir::parse_function(*fns->ctx, text).output_nodes() == f->fn.output_nodes());
    }
  }
}
