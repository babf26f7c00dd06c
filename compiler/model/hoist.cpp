// Splitting a field at its state-independent subexpressions (see hoist.h).
#include "compiler/model/hoist.h"

#include <string>
#include <unordered_map>
#include <unordered_set>

#include "compiler/ir/context.h"
#include "compiler/ir/traversal.h"

namespace plastic::model {

namespace {

// What each node of the field reads, transitively.
struct Reads {
  bool state = false;   // a State leaf
  bool varying = false; // the time or an Input leaf
};

std::unordered_map<const ir::Node*, Reads>
what_nodes_read(const std::vector<const ir::Node*>& order) {
  std::unordered_map<const ir::Node*, Reads> reads;
  for (const ir::Node* n : order) {
    Reads r;
    r.state = n->op() == ir::Op::State;
    r.varying = n->op() == ir::Op::Time || n->op() == ir::Op::Input;
    for (const ir::Node* o : n->operands()) {
      const Reads& ro = reads.at(o);
      r.state = r.state || ro.state;
      r.varying = r.varying || ro.varying;
    }
    reads.emplace(n, r);
  }
  return reads;
}

// The nodes to hoist: computed from the time or inputs (not from the state
// alone, not leaves or constants) and read by a state-dependent node or
// returned by the field: the largest state-independent values on their
// paths to the state (one may be an operand of another when the state reads
// both).
std::vector<const ir::Node*> frontier(const ir::Function& field) {
  const std::vector<const ir::Node*> roots = field.output_nodes();
  const std::vector<const ir::Node*> order = ir::topo_order(roots);
  const auto reads = what_nodes_read(order);
  auto hoistable = [&](const ir::Node* n) {
    const Reads& r = reads.at(n);
    return !r.state && r.varying && !n->is_leaf() && !n->is_constant();
  };
  std::unordered_set<const ir::Node*> chosen;
  std::vector<const ir::Node*> out;
  auto choose = [&](const ir::Node* n) {
    if (hoistable(n) && chosen.insert(n).second) out.push_back(n);
  };
  for (const ir::Node* n : order)
    if (reads.at(n).state)
      for (const ir::Node* o : n->operands())
        choose(o);
  for (const ir::Node* r : roots)
    choose(r);
  return out;
}

} // namespace

std::optional<HoistedField> hoist_state_independent(const ir::Function& field) {
  std::vector<const ir::Node*> hoisted = frontier(field);
  if (hoisted.empty()) return std::nullopt;
  ir::Context& ctx = field.context();

  std::vector<const ir::Node*> outer_inputs;
  for (const ir::Node* in : field.inputs())
    if (in->op() != ir::Op::State) outer_inputs.push_back(in);
  std::vector<ir::Output> values;
  values.reserve(hoisted.size());
  for (size_t i = 0; i < hoisted.size(); ++i)
    values.push_back({"v" + std::to_string(i), hoisted[i]});

  std::vector<const ir::Node*> state_inputs = field.inputs();
  std::unordered_map<const ir::Node*, const ir::Node*> replace;
  for (size_t i = 0; i < hoisted.size(); ++i) {
    const ir::Node* v = hoisted[i];
    const ir::Node* leaf = ctx.leaf(ir::Op::Arg, "field.hoisted." + std::to_string(i), v->shape(),
                                    static_cast<int64_t>(i), v->dtype());
    replace.emplace(v, leaf);
    state_inputs.push_back(leaf);
  }
  const std::vector<const ir::Node*> rest = ir::substitute(field.output_nodes(), replace);
  std::vector<ir::Output> outputs = field.outputs();
  for (size_t i = 0; i < outputs.size(); ++i)
    outputs[i].node = rest[i];

  return HoistedField{ir::Function(field.name() + ".hoisted", outer_inputs, std::move(values)),
                      ir::Function(field.name() + ".rest", state_inputs, std::move(outputs)),
                      std::move(hoisted)};
}

} // namespace plastic::model
