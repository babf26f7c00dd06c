// Iterative DAG walks and rewrites (see traversal.h).
#include "compiler/ir/traversal.h"

#include <unordered_set>

#include "compiler/ir/ops.h"

namespace plastic::ir {

std::vector<const Node*> topo_order(std::span<const Node* const> roots,
                                    const std::function<bool(const Node*)>& stop) {
  std::vector<const Node*> order;
  std::unordered_set<const Node*> seen;
  // Explicit stack of (node, next operand index).
  std::vector<std::pair<const Node*, size_t>> stack;
  for (const Node* root : roots) {
    if (!seen.insert(root).second) continue;
    stack.emplace_back(root, 0);
    while (!stack.empty()) {
      auto& [n, i] = stack.back();
      bool leaf_here = stop && stop(n);
      if (!leaf_here && i < n->num_operands()) {
        const Node* child = n->operand(i++);
        if (seen.insert(child).second) stack.emplace_back(child, 0);
        continue;
      }
      order.push_back(n);
      stack.pop_back();
    }
  }
  return order;
}

std::unordered_map<const Node*, int> use_counts(std::span<const Node* const> roots) {
  std::unordered_map<const Node*, int> uses;
  for (const Node* n : topo_order(roots)) {
    uses.try_emplace(n, 0);
    for (const Node* o : n->operands())
      ++uses[o];
  }
  for (const Node* r : roots)
    ++uses[r];
  return uses;
}

std::vector<const Node*>
rewrite(std::span<const Node* const> roots,
        const std::function<const Node*(const Node* original, const Node* rebuilt)>& visit) {
  std::unordered_map<const Node*, const Node*> done;
  std::vector<const Node*> ops;
  for (const Node* n : topo_order(roots)) {
    ops.clear();
    for (const Node* o : n->operands())
      ops.push_back(done.at(o));
    done[n] = visit(n, rebuild(n, ops));
  }
  std::vector<const Node*> out;
  for (const Node* r : roots)
    out.push_back(done.at(r));
  return out;
}

std::vector<const Node*> substitute(std::span<const Node* const> roots,
                                    const std::unordered_map<const Node*, const Node*>& replace) {
  std::unordered_map<const Node*, const Node*> done;
  std::vector<const Node*> ops;
  auto stop = [&](const Node* n) { return replace.count(n) > 0; };
  for (const Node* n : topo_order(roots, stop)) {
    if (auto it = replace.find(n); it != replace.end()) {
      done[n] = it->second;
      continue;
    }
    ops.clear();
    for (const Node* o : n->operands())
      ops.push_back(done.at(o));
    done[n] = rebuild(n, ops);
  }
  std::vector<const Node*> out;
  for (const Node* r : roots)
    out.push_back(done.at(r));
  return out;
}

} // namespace plastic::ir
