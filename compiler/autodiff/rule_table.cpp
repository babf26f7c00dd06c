// Assembles the derivative rule table from the rule files and checks it is
// complete (see rules.h).
#include <fmt/format.h>

#include "compiler/autodiff/rules.h"
#include "compiler/ir/error.h"

namespace plastic::ad {
namespace {

RuleTable build() {
  RuleTable t{};
  register_elementwise_rules(t);
  register_structural_rules(t);
  register_contract_rules(t);
  register_composite_rules(t);
  for (int i = 0; i < ir::kNumOps; ++i) {
    auto op = static_cast<ir::Op>(i);
    if (ir::op_is_leaf(op) || op == ir::Op::Constant) continue;
    PLASTIC_CHECK(t[static_cast<size_t>(i)].vjp && t[static_cast<size_t>(i)].jvp,
                  "op '{}' has no derivative rule (add one to autodiff/rules_*.cpp)",
                  ir::op_name(op));
  }
  return t;
}

} // namespace

const DiffRule& diff_rule(ir::Op op) {
  static const RuleTable table = build();
  const DiffRule& r = table[static_cast<size_t>(op)];
  PLASTIC_CHECK(r.vjp && r.jvp, "op '{}' has no derivative rule", ir::op_name(op));
  return r;
}

} // namespace plastic::ad
