// The reassociate-contractions pass (see reassociate.h): bottom-up sweeps
// that replace product trees by cheaper contraction orders, each judged by
// its effect on the work of the whole function. The networks and their
// contraction plans are in product_network.cpp.
#include "compiler/passes/reassociate.h"

#include <algorithm>
#include <functional>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include "compiler/ir/ops.h"
#include "compiler/ir/traversal.h"
#include "compiler/passes/product_network.h"

namespace plastic::passes {
using ir::Node;
using namespace detail;

namespace {

// Live-node bookkeeping of one sweep: use counts of the current graph, kept
// up to date as replacements are accepted, so that each candidate rewrite is
// judged by its effect on the whole function's work.
class LiveGraph {
public:
  // `resolve` maps a node to its accepted replacement: operands of nodes of
  // the original graph are always seen through it.
  LiveGraph(std::span<const Node* const> roots,
            const std::function<const Node*(const Node*)>& resolve)
      : uses_(ir::use_counts(roots)), resolve_(resolve) {}

  const std::unordered_map<const Node*, int>& uses() const { return uses_; }
  bool live(const Node* n) const { return count(n) > 0; }

  // Change in total work if `n` (live) is replaced by `c`.
  double delta(const Node* n, const Node* c) const {
    // Nodes that die with n.
    std::unordered_map<const Node*, int> dec;
    std::unordered_set<const Node*> dead{n};
    std::vector<const Node*> stack{n};
    double removed = own_cost(n);
    while (!stack.empty()) {
      const Node* x = stack.back();
      stack.pop_back();
      for (const Node* o0 : x->operands())
        if (const Node* o = resolve_(o0); ++dec[o] == count(o) && dead.insert(o).second) {
          removed += own_cost(o);
          stack.push_back(o);
        }
    }
    // Nodes c needs that are not live afterwards (new, or revived).
    double added = 0;
    std::unordered_set<const Node*> seen;
    stack = {c};
    while (!stack.empty()) {
      const Node* x = stack.back();
      stack.pop_back();
      if (!seen.insert(x).second) continue;
      if (live(x) && !dead.count(x)) continue;
      added += own_cost(x);
      for (const Node* o : x->operands())
        stack.push_back(resolve_(o));
    }
    return added - removed;
  }

  void snapshot() { saved_ = uses_; }
  void restore() { uses_ = saved_; }

  // Accepts the replacement of n by c.
  void replace(const Node* n, const Node* c) {
    activate(c, count(n));
    uses_[n] = 0;
    release_operands(n);
  }

private:
  int count(const Node* n) const {
    auto it = uses_.find(n);
    return it == uses_.end() ? 0 : it->second;
  }
  void activate(const Node* c, int by) {
    std::vector<std::pair<const Node*, int>> stack{{c, by}};
    while (!stack.empty()) {
      auto [x, k] = stack.back();
      stack.pop_back();
      bool was_dead = count(x) == 0;
      uses_[x] += k;
      if (was_dead)
        for (const Node* o : x->operands())
          stack.emplace_back(resolve_(o), 1);
    }
  }
  void release_operands(const Node* n) {
    std::vector<const Node*> stack{n};
    while (!stack.empty()) {
      const Node* x = stack.back();
      stack.pop_back();
      for (const Node* o0 : x->operands())
        if (const Node* o = resolve_(o0); --uses_[o] == 0) stack.push_back(o);
    }
  }
  std::unordered_map<const Node*, int> uses_, saved_;
  const std::function<const Node*(const Node*)>& resolve_;
};

// The roots with every replacement applied, including inside replacements
// (which may contain original nodes whose operands were replaced later).
std::vector<const Node*>
apply_replacements(const std::vector<const Node*>& roots,
                   const std::unordered_map<const Node*, const Node*>& replaced) {
  std::unordered_map<const Node*, const Node*> done;
  // Iterative post-order where a replaced node's only "child" is its replacement.
  std::vector<std::pair<const Node*, size_t>> stack;
  std::vector<const Node*> ops;
  auto children = [&](const Node* x) -> std::vector<const Node*> {
    auto it = replaced.find(x);
    if (it != replaced.end()) return {it->second};
    return {x->operands().begin(), x->operands().end()};
  };
  for (const Node* r : roots) {
    if (done.count(r)) continue;
    stack.emplace_back(r, 0);
    while (!stack.empty()) {
      auto& [x, i] = stack.back();
      std::vector<const Node*> ch = children(x);
      if (i < ch.size()) {
        const Node* c = ch[i++];
        if (!done.count(c)) stack.emplace_back(c, 0);
        continue;
      }
      if (auto it = replaced.find(x); it != replaced.end()) {
        done[x] = done.at(it->second);
      } else {
        ops.clear();
        for (const Node* o : x->operands())
          ops.push_back(done.at(o));
        done[x] = ir::rebuild(x, ops);
      }
      stack.pop_back();
    }
  }
  std::vector<const Node*> out;
  out.reserve(roots.size());
  for (const Node* r : roots)
    out.push_back(done.at(r));
  return out;
}

// One bottom-up sweep; returns the new roots (unchanged if nothing helped).
std::vector<const Node*> sweep(const std::vector<const Node*>& roots) {
  std::unordered_map<const Node*, const Node*> replaced;
  std::function<const Node*(const Node*)> resolve = [&](const Node* x) {
    for (auto it = replaced.find(x); it != replaced.end(); it = replaced.find(x))
      x = it->second;
    return x;
  };
  LiveGraph graph(roots, resolve);

  std::vector<const Node*> order = ir::topo_order(roots);
  std::unordered_map<const Node*, size_t> position;
  std::unordered_map<const Node*, std::vector<const Node*>> users;
  for (size_t i = 0; i < order.size(); ++i) {
    position[order[i]] = i;
    for (const Node* o : order[i]->operands())
      users[o].push_back(order[i]);
  }
  auto best_candidate = [&](const Node* n, double& delta) -> const Node* {
    const Node* best = nullptr;
    delta = 0;
    for (bool deep : {false, true}) {
      const Node* c = build(flatten_product(n, graph.uses(), resolve, deep), n);
      if (c == n) continue;
      double d = graph.delta(n, c);
      if (!best || d < delta) {
        delta = d;
        best = c;
      }
    }
    return best;
  };
  bool changed = false;
  for (const Node* n : order) {
    if (!is_product(n) || !graph.live(n)) continue;
    double delta = 0;
    if (const Node* c = best_candidate(n, delta); c && delta < -0.5) {
      graph.replace(n, c);
      replaced[n] = c;
      changed = true;
    }
    // A shared sum (or product of sums) of low-rank terms dies only if all
    // its users contract through it: try them together, at the last of them.
    for (const Node* s : n->operands()) {
      if (!(is_sum(s) || is_product(s)) || !graph.live(s) || replaced.count(s)) continue;
      const std::vector<const Node*>& us = users[s];
      if (us.size() < 2 || us.size() != static_cast<size_t>(graph.uses().at(s))) continue;
      bool ready = std::all_of(us.begin(), us.end(), [&](const Node* u) {
        return is_product(u) && !replaced.count(u) && graph.live(u) && position[u] <= position[n];
      });
      if (!ready || position[us.back()] != position[n]) continue;
      graph.snapshot();
      double total = 0;
      std::vector<std::pair<const Node*, const Node*>> moves;
      for (const Node* u : us) {
        const Node* c = build(flatten_product(u, graph.uses(), resolve, true), u);
        if (c == u) break;
        total += graph.delta(u, c);
        graph.replace(u, c);
        replaced[u] = c;
        moves.emplace_back(u, c);
      }
      if (moves.size() == us.size() && total < -0.5) {
        changed = true;
      } else {
        graph.restore();
        for (const auto& m : moves)
          replaced.erase(m.first);
      }
    }
  }
  if (!changed) return roots;
  return apply_replacements(roots, replaced);
}

} // namespace

ir::Function reassociate_contractions(const ir::Function& f) {
  std::vector<const Node*> roots = f.output_nodes();
  for (int round = 0; round < 4; ++round) {
    std::vector<const Node*> next = sweep(roots);
    if (next == roots) break;
    roots = std::move(next);
  }
  return f.with_output_nodes(roots);
}

} // namespace plastic::passes
