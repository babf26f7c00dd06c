// Dead-code elimination (see dce.h).
#include "compiler/passes/dce.h"

#include <unordered_map>
#include <unordered_set>

#include "compiler/ir/context.h"
#include "compiler/ir/traversal.h"

namespace plastic::passes {
using ir::Node;

ir::Function eliminate_dead_code(const ir::Function& f, const DceOptions& options) {
  if (!options.prune_inputs) return f;
  std::unordered_set<const Node*> live;
  for (const Node* n : ir::topo_order(f.output_nodes()))
    live.insert(n);
  std::vector<const Node*> inputs;
  for (const Node* in : f.inputs())
    if (live.count(in)) inputs.push_back(in);
  return ir::Function(f.name(), std::move(inputs), f.outputs());
}

ir::Function compact_into(const ir::Function& f, ir::Context& into) {
  std::unordered_map<const Node*, const Node*> copy;
  auto copy_node = [&](const Node* n) {
    std::vector<const Node*> ops;
    for (const Node* o : n->operands())
      ops.push_back(copy.at(o));
    ir::LocationScope at(into, n->loc());
    return into.make(n->op(), n->dtype(), n->shape(), std::move(ops), n->attrs());
  };
  std::vector<const Node*> inputs;
  for (const Node* in : f.inputs())
    inputs.push_back(copy[in] = copy_node(in));
  for (const Node* n : ir::topo_order(f.output_nodes()))
    if (!copy.count(n)) copy[n] = copy_node(n);
  std::vector<ir::Output> outs;
  for (const ir::Output& o : f.outputs())
    outs.push_back({o.name, copy.at(o.node)});
  return ir::Function(f.name(), std::move(inputs), std::move(outs));
}

} // namespace plastic::passes
