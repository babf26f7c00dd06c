// The losses as lowered: bce_with_logits with and without pos_weight
// against PyTorch's BCEWithLogitsLoss written out by hand, and the VJP of
// the weighted loss against finite differences.
#include <catch2/catch.hpp>

#include "compiler/interp/interpreter.h"
#include "compiler/model/gradcheck.h"
#include "compiler/model/model_functions.h"

#include <cmath>

using namespace plastic;

namespace {

// A binary model whose loss line is `loss` (the rest only makes it whole).
std::optional<model::ModelFunctions> binary_model(const std::string& loss) {
  const std::string text = "model weighted\n"
                           "dim d_in = 2, hidden = 3\n"
                           "input x : path[d_in] linear\n"
                           "input y : target[2]\n"
                           "param A : [hidden, d_in] init glorot_uniform\n"
                           "param out : linear[hidden, 2]\n"
                           "state z : [hidden] = 0\n"
                           "flow z' = tanh(A @ x(t)) - z\n"
                           "output logit = out(z(T))\n"
                           "loss " +
                           loss +
                           "\n"
                           "solve rk4 step 0.5\n"
                           "gradient direct\n";
  model::BuildStatus status{};
  return model::build_model_functions_from_source("weighted.ode", text, {}, status);
}

// PyTorch: mean over elements of -[p y log s(x) + (1 - y) log(1 - s(x))].
double torch_bce(const std::vector<double>& x, const std::vector<double>& y, double p) {
  double sum = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double log_s = -std::log1p(std::exp(-x[i])), log_1ms = -std::log1p(std::exp(x[i]));
    sum -= p * y[i] * log_s + (1 - y[i]) * log_1ms;
  }
  return sum / static_cast<double>(x.size());
}

double loss_of(const model::ModelFunctions& fns, const std::vector<double>& x,
               const std::vector<double>& y) {
  const ir::Function* loss = fns.find(model::FnKind::Loss);
  REQUIRE(loss);
  // The loss function's inputs: the output, then the target (by name).
  std::vector<interp::Tensor<double>> inputs;
  for (const ir::Node* in : loss->inputs())
    inputs.emplace_back(in->shape(), in->name() == "logit" ? x : y);
  return interp::evaluate<double>(*loss, inputs).at(0).data.at(0);
}

} // namespace

TEST_CASE("bce_with_logits with pos_weight is PyTorch's weighted loss", "[loss]") {
  const std::vector<double> x = {1.5, -0.7}, y = {1, 0};
  auto plain = binary_model("bce_with_logits(logit, y)");
  auto weighted = binary_model("bce_with_logits(logit, y, pos_weight = 10)");
  REQUIRE(plain);
  REQUIRE(weighted);
  CHECK(loss_of(*plain, x, y) == Approx(torch_bce(x, y, 1)).epsilon(1e-14));
  CHECK(loss_of(*weighted, x, y) == Approx(torch_bce(x, y, 10)).epsilon(1e-14));
  // A negative sample alone is not weighted; a positive one is.
  CHECK(loss_of(*weighted, {-2.0, 0.3}, {0, 0}) == Approx(loss_of(*plain, {-2.0, 0.3}, {0, 0})));
  CHECK(loss_of(*weighted, {-2.0, 0.3}, {1, 1}) ==
        Approx(10 * loss_of(*plain, {-2.0, 0.3}, {1, 1})));
}

TEST_CASE("the weighted loss's VJP matches finite differences", "[loss][gradcheck]") {
  auto weighted = binary_model("bce_with_logits(logit, y, pos_weight = 4.5)");
  REQUIRE(weighted);
  const ir::Function* loss = weighted->find(model::FnKind::Loss);
  const ir::Function* vjp = weighted->find(model::FnKind::LossVjp);
  REQUIRE(loss);
  REQUIRE(vjp);
  const std::vector<model::GradcheckEntry> entries = model::gradcheck(*loss, *vjp);
  bool logit_checked = false;
  for (const model::GradcheckEntry& e : entries) {
    INFO(e.input);
    CHECK(e.error < 1e-6);
    logit_checked = logit_checked || e.input == "logit";
  }
  CHECK(logit_checked);
}
