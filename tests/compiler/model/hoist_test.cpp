// Splitting a field at its state-independent subexpressions
// (compiler/model/hoist.h): on every example model, the state part fed the
// hoisted values computes the field, in f64 through the reference
// interpreter; what is hoisted reads no state; which models have anything
// to hoist.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "compiler/interp/interpreter.h"
#include "compiler/ir/traversal.h"
#include "compiler/model/hoist.h"
#include "compiler/model/model_functions.h"

using namespace plastic;
using Tensor = interp::Tensor<double>;

namespace {

std::optional<model::ModelFunctions> build(const std::string& path) {
  model::BuildStatus status{};
  return model::build_model_functions(path, {}, status);
}

// Random values for every input of `f` (time in [0, 1], the rest in [-1, 1]).
std::vector<Tensor> random_inputs(const ir::Function& f, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<Tensor> out;
  for (const ir::Node* in : f.inputs()) {
    Tensor t(in->shape());
    for (double& x : t.data)
      x = in->op() == ir::Op::Time ? 0.5 * (unit(rng) + 1.0) : unit(rng);
    out.push_back(std::move(t));
  }
  return out;
}

bool reads_state(const ir::Node* n) {
  const std::vector<const ir::Node*> roots = {n};
  for (const ir::Node* m : ir::topo_order(roots))
    if (m->op() == ir::Op::State) return true;
  return false;
}

bool has_op(const std::vector<const ir::Node*>& roots, ir::Op op) {
  for (const ir::Node* m : ir::topo_order(roots))
    if (m->op() == op) return true;
  return false;
}

} // namespace

TEST_CASE("the state part fed the hoisted values is the field, on every example",
          "[model][hoist]") {
  int split_models = 0;
  for (const auto& entry : std::filesystem::directory_iterator(PLASTIC_SOURCE_DIR "/examples")) {
    if (entry.path().extension() != ".ode") continue;
    INFO(entry.path().filename().string());
    std::optional<model::ModelFunctions> fns = build(entry.path().string());
    REQUIRE(fns);
    const ir::Function* field = fns->find(model::FnKind::Field);
    REQUIRE(field != nullptr);
    std::optional<model::HoistedField> split = model::hoist_state_independent(*field);
    if (!split) continue;
    ++split_models;
    for (const ir::Node* v : split->hoisted)
      CHECK_FALSE(reads_state(v));

    std::mt19937_64 rng(11);
    const std::vector<Tensor> inputs = random_inputs(*field, rng);
    const std::vector<Tensor> expected = interp::evaluate(*field, inputs);
    std::vector<Tensor> outer;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (field->inputs()[i]->op() != ir::Op::State) outer.push_back(inputs[i]);
    std::vector<Tensor> rest_inputs = inputs;
    for (Tensor& v : interp::evaluate(split->inputs_part, outer))
      rest_inputs.push_back(std::move(v));
    const std::vector<Tensor> got = interp::evaluate(split->state_part, rest_inputs);
    REQUIRE(got.size() == expected.size());
    for (size_t o = 0; o < got.size(); ++o)
      for (size_t i = 0; i < got[o].data.size(); ++i) {
        const double e = expected[o].data[i];
        CHECK(std::abs(got[o].data[i] - e) <= 1e-12 * (1.0 + std::abs(e)));
      }
  }
  CHECK(split_models > 0);
}

TEST_CASE("every fast weight programmer hoists its input projections, nothing else does yet",
          "[model][hoist]") {
  // The FWPs' keys, values and learning rates are contractions of the input
  // alone. The gated and plain NODEs read their input through W [h; x]
  // and the NCDE through g(z) dx: state-dependent products that only a
  // split by linearity (W_h h + W_x x) would open; ode_rfwp's and ode_rnn's
  // fields read no input at all.
  for (const auto& entry : std::filesystem::directory_iterator(PLASTIC_SOURCE_DIR "/examples")) {
    if (entry.path().extension() != ".ode") continue;
    const std::string name = entry.path().filename().string();
    INFO(name);
    std::optional<model::ModelFunctions> fns = build(entry.path().string());
    REQUIRE(fns);
    std::optional<model::HoistedField> split =
        model::hoist_state_independent(*fns->find(model::FnKind::Field));
    if (name.rfind("fwp_", 0) == 0) {
      REQUIRE(split);
      CHECK(has_op(split->hoisted, ir::Op::Contract));
    } else {
      CHECK_FALSE(split.has_value());
    }
  }
  // Where a field reads its input only through hoisted values, the state
  // part reads no input leaf.
  std::optional<model::ModelFunctions> delta =
      build(PLASTIC_SOURCE_DIR "/examples/fwp_delta_cde.ode");
  REQUIRE(delta);
  std::optional<model::HoistedField> split =
      model::hoist_state_independent(*delta->find(model::FnKind::Field));
  REQUIRE(split);
  CHECK_FALSE(has_op(split->state_part.output_nodes(), ir::Op::Input));
}
