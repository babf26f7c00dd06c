// The finite-difference checker behind `plastic gradcheck`: it must accept
// correct VJPs (every model of the zoo, including stiff fields and fields
// with relu kinks) and reject a wrong one. A checker that passes everything
// would make the zoo test below meaningless, so both directions are tested.
#include <catch2/catch.hpp>

#include "compiler/autodiff/function_ad.h"
#include "compiler/ir/ir.h"
#include "compiler/model/gradcheck.h"
#include "compiler/model/model_functions.h"

#include <filesystem>

using namespace plastic;

namespace {

double worst_error(const std::vector<model::GradcheckEntry>& entries) {
  double worst = 0;
  for (const auto& e : entries)
    worst = std::max(worst, e.error);
  return worst;
}

} // namespace

TEST_CASE("gradcheck accepts a correct VJP and rejects a wrong one", "[gradcheck]") {
  ir::Context ctx;
  const ir::Node* z = ctx.state("z", {5});
  const ir::Node* w = ctx.param("w", {5});
  ir::Function f("f", {z, w}, {{"y", ir::tanh(ir::mul(w, z))}});
  ir::Function good = ad::vjp_function(f);
  CHECK(worst_error(model::gradcheck(f, good)) < 1e-8);

  // The same VJP with d.w replaced by a slightly wrong expression: 1.01 x.
  std::vector<const ir::Node*> outs = good.output_nodes();
  size_t dw = 0;
  while (good.outputs()[dw].name != "d.w")
    ++dw;
  outs[dw] = ir::mul(outs[dw], ir::splat_like(outs[dw], 1.01));
  ir::Function bad = good.with_output_nodes(outs);
  auto entries = model::gradcheck(f, bad);
  double error_w = 0, error_z = 0;
  for (const auto& e : entries)
    (e.input == "w" ? error_w : error_z) = e.error;
  CHECK(error_w > 1e-3);
  CHECK(error_z < 1e-8);
}

// Issue acceptance: `plastic gradcheck` passes on every file in examples/.
TEST_CASE("every VJP of every zoo model matches finite differences", "[gradcheck]") {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(PLASTIC_SOURCE_DIR "/examples"))
    if (entry.path().extension() == ".ode") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 20);
  for (const std::string& file : files) {
    model::BuildStatus status{};
    auto fns = model::build_model_functions(file, {}, status);
    INFO(file);
    REQUIRE(fns);
    for (auto [f, vjp] : fns->vjp_pairs()) {
      for (const auto& e : model::gradcheck(*f, *vjp)) {
        INFO(e.function << " d." << e.input << " ad " << e.ad << " fd " << e.fd);
        CHECK(e.error < 1e-6);
      }
    }
  }
}
