// The resolved form the checker hands to the compiler (dsl/resolved.h):
// names bound to the model's tables, lets and fns inlined, constants folded,
// every node's shape known, nodes in evaluation order.
#include "tests/dsl/test_support.h"

#include <catch2/catch.hpp>

using namespace plastic;
using dsl::ResolvedKind;

namespace {

const char* kModel = R"(model resolved
dim n = 3, k = 2 * n
input x : path[n] linear
input y : target[n]
param W : [n, n]
param head : linear[n, n]
state z : [n] = x(t0)
fn act(v) = tanh(v)
flow z' =
  let a = W @ z
  let unused = x(t)
  act(a) + a * k + z[0:n] ^ 2
output pred = head(z)
loss mse(pred, y)
solve rk4 step 0.1
)";

dsl::CheckResult checked() {
  dsl::CheckResult r;
  std::string diagnostics = test::check_text(kModel, &r);
  INFO(diagnostics);
  REQUIRE(r.model != nullptr);
  return r;
}

} // namespace

TEST_CASE("every expression irgen needs comes resolved", "[dsl][resolved]") {
  dsl::CheckResult r = checked();
  const dsl::CheckedModel& m = *r.model;
  REQUIRE(m.states.size() == 1);
  CHECK_FALSE(m.states[0].init_value.empty());
  CHECK_FALSE(m.states[0].flow_value.empty());
  CHECK(m.states[0].jump_value.empty()); // no jump declared
  REQUIRE(m.outputs.size() == 1);
  CHECK_FALSE(m.outputs[0].value.empty());
  CHECK_FALSE(m.loss_value.empty());
  CHECK(m.loss_value.value().value == dsl::ValueKind::Loss);
  CHECK(m.outputs[0].value.value().shape == dsl::Shape{3});
}

TEST_CASE("a resolved flow: names bound, lets and fns inlined, constants folded",
          "[dsl][resolved]") {
  dsl::CheckResult r = checked();
  const dsl::ResolvedExpr& flow = r.model->states[0].flow_value;
  CHECK(flow.value().shape == dsl::Shape{3});
  int uses_of_a = 0, matmul = -1;
  bool saw_k = false, saw_exponent = false, saw_tanh = false, saw_unused_path = false;
  for (size_t i = 0; i < flow.nodes.size(); ++i) {
    const dsl::ResolvedNode& n = flow.nodes[i];
    for (int a : n.args)
      CHECK(a < static_cast<int>(i)); // operands come first
    if (n.kind == ResolvedKind::Binary && n.binary_op == dsl::BinaryOp::MatMul)
      matmul = static_cast<int>(i);
    for (int a : n.args)
      uses_of_a += a == matmul && matmul >= 0;
    if (n.kind == ResolvedKind::Number && n.number == 6) saw_k = true;        // dim k = 2 * n
    if (n.kind == ResolvedKind::Number && n.number == 2) saw_exponent = true; // `^ 2`
    if (n.kind == ResolvedKind::Builtin && n.builtin == dsl::Builtin::Tanh)
      saw_tanh = true; // act inlined
    if (n.kind == ResolvedKind::Leaf && n.leaf.kind == dsl::Leaf::PathValue &&
        n.leaf.when == dsl::When::Now)
      saw_unused_path = true; // an unused let is still recorded, in order
    if (n.kind == ResolvedKind::Leaf && n.leaf.kind == dsl::Leaf::Param)
      CHECK(n.leaf.index == 0); // W
  }
  REQUIRE(matmul >= 0);
  CHECK(uses_of_a == 2); // `a` bound once, used twice: one node
  CHECK(saw_k);
  CHECK(saw_exponent);
  CHECK(saw_tanh);
  CHECK(saw_unused_path);
}

TEST_CASE("a resolved layer call is its apply body over the instance's parameters",
          "[dsl][resolved]") {
  dsl::CheckResult r = checked();
  const dsl::CheckedModel& m = *r.model;
  const dsl::ResolvedExpr& pred = m.outputs[0].value;
  std::vector<std::string> params;
  for (const dsl::ResolvedNode& n : pred.nodes)
    if (n.kind == ResolvedKind::Leaf && n.leaf.kind == dsl::Leaf::Param)
      params.push_back(m.params[n.leaf.index].name);
  CHECK(params == std::vector<std::string>{"head.weight", "head.bias"});
  CHECK(pred.value().kind == ResolvedKind::Binary); // einsum(...) + bias
}
