// Re-association of product trees (see reassociate.h).
#include "compiler/passes/reassociate.h"

#include <algorithm>
#include <unordered_map>

#include "compiler/ir/einsum.h"
#include "compiler/ir/ops.h"
#include "compiler/ir/traversal.h"

namespace plastic::passes {
using ir::Node;
using ir::Op;

namespace {

using Labels = std::vector<int>;

bool contains(const Labels& ls, int l) { return std::find(ls.begin(), ls.end(), l) != ls.end(); }

bool is_product(const Node* n) {
  if (!ir::is_float(n->dtype())) return false;
  switch (n->op()) {
  case Op::Contract: case Op::Mul: case Op::Neg: case Op::Broadcast: return true;
  default: return false;
  }
}

// The network of one product tree.
struct Network {
  struct Factor {
    const Node* node;  // an original node (mapped through the rewrite later)
    Labels labels;
  };
  std::vector<Factor> factors;
  std::vector<int64_t> size;  // per label
  Labels output;
  double coef = 1;
  double cost = 0;  // loop-space size of the tree as written
};

class Flattener {
public:
  Flattener(const std::unordered_map<const Node*, int>& uses) : uses_(uses) {}

  Network flatten(const Node* root) {
    Network net;
    net_ = &net;
    for (int64_t d : root->shape()) net.output.push_back(new_label(d));
    expand(root, net.output, /*is_root=*/true);
    return net;
  }

private:
  int new_label(int64_t size) {
    net_->size.push_back(size);
    return static_cast<int>(net_->size.size() - 1);
  }

  bool expandable(const Node* n, bool is_root) const {
    if (n->is_splat() && ir::is_float(n->dtype())) return true;
    return is_product(n) && (is_root || uses_.at(n) == 1);
  }

  void expand(const Node* n, const Labels& ls, bool is_root = false) {
    if (!expandable(n, is_root)) {
      net_->factors.push_back({n, ls});
      return;
    }
    if (n->is_splat()) {
      net_->coef *= n->attrs().reals[0];
      return;
    }
    switch (n->op()) {
    case Op::Neg:
      net_->coef = -net_->coef;
      net_->cost += static_cast<double>(n->numel());
      expand(n->operand(0), ls);
      break;
    case Op::Mul:
      net_->cost += static_cast<double>(n->numel());
      expand(n->operand(0), ls);
      expand(n->operand(1), ls);
      break;
    case Op::Broadcast: {
      Labels inner;
      for (int64_t a : n->attrs().ints) inner.push_back(ls[static_cast<size_t>(a)]);
      expand(n->operand(0), inner);
      break;
    }
    case Op::Contract: {
      ir::EinsumSpec spec = ir::EinsumSpec::parse(n->attrs().str);
      std::vector<int> rename(static_cast<size_t>(spec.label_bound()), -1);
      for (size_t j = 0; j < spec.output.size(); ++j)
        rename[static_cast<size_t>(spec.output[j])] = ls[j];
      double loop = 1;
      for (size_t k = 0; k < spec.inputs.size(); ++k)
        for (size_t a = 0; a < spec.inputs[k].size(); ++a) {
          int& r = rename[static_cast<size_t>(spec.inputs[k][a])];
          if (r < 0) {
            r = new_label(n->operand(k)->shape()[a]);
            loop *= static_cast<double>(n->operand(k)->shape()[a]);
          }
        }
      for (int64_t d : n->shape()) loop *= static_cast<double>(d);
      net_->cost += loop;
      for (size_t k = 0; k < spec.inputs.size(); ++k) {
        Labels inner;
        for (int l : spec.inputs[k]) inner.push_back(rename[static_cast<size_t>(l)]);
        expand(n->operand(k), inner);
      }
      break;
    }
    default: net_->factors.push_back({n, ls});
    }
  }

  const std::unordered_map<const Node*, int>& uses_;
  Network* net_ = nullptr;
};

// Contraction of labelled operands onto `out` (labels renumbered locally so
// any number of network labels fits the 52 letters of a spec).
const Node* contract_labeled(const std::vector<const Node*>& ops, const std::vector<Labels>& ls,
                             const Labels& out) {
  std::unordered_map<int, int> local;
  auto map = [&](const Labels& v) {
    Labels r;
    for (int l : v) r.push_back(local.emplace(l, static_cast<int>(local.size())).first->second);
    return r;
  };
  ir::EinsumSpec spec;
  for (const Labels& v : ls) spec.inputs.push_back(map(v));
  spec.output = map(out);
  return ir::contract(spec, ops);
}

// Greedy pairwise plan; returns null if it is not cheaper than `net.cost`.
const Node* plan(const Network& net, const std::unordered_map<const Node*, const Node*>& done) {
  struct Item {
    const Node* node;
    Labels labels;
  };
  std::vector<Item> items;
  for (const auto& f : net.factors) items.push_back({done.at(f.node), f.labels});
  if (items.size() < 3) return nullptr;
  auto loop_size = [&](const Labels& a, const Labels& b) {
    double s = 1;
    for (int l : a) s *= static_cast<double>(net.size[static_cast<size_t>(l)]);
    for (int l : b)
      if (!contains(a, l)) s *= static_cast<double>(net.size[static_cast<size_t>(l)]);
    return s;
  };
  double cost = 0;
  while (items.size() > 1) {
    size_t bi = 0, bj = 1;
    double best = -1;
    Labels best_keep;
    for (size_t i = 0; i < items.size(); ++i)
      for (size_t j = i + 1; j < items.size(); ++j) {
        Labels keep;
        for (const Labels* side : {&items[i].labels, &items[j].labels})
          for (int l : *side) {
            if (contains(keep, l)) continue;
            bool needed = contains(net.output, l);
            for (size_t k = 0; k < items.size() && !needed; ++k)
              needed = k != i && k != j && contains(items[k].labels, l);
            if (needed) keep.push_back(l);
          }
        double c = loop_size(items[i].labels, items[j].labels);
        if (best < 0 || c < best) {
          best = c;
          bi = i;
          bj = j;
          best_keep = keep;
        }
      }
    cost += best;
    const Node* c = contract_labeled({items[bi].node, items[bj].node},
                                     {items[bi].labels, items[bj].labels}, best_keep);
    items.erase(items.begin() + static_cast<long>(bj));
    items[bi] = {c, best_keep};
  }
  // Final relabelling/summation to the output order, broadcast of output
  // labels no factor carries, and the scalar coefficient (including the size
  // of summed labels no factor carries: Σ over them of a constant).
  Item last = items[0];
  double coef = net.coef;
  Labels present;
  for (int l : net.output)
    if (contains(last.labels, l)) present.push_back(l);
  std::vector<bool> in_factor(net.size.size(), false);
  for (const auto& f : net.factors)
    for (int l : f.labels) in_factor[static_cast<size_t>(l)] = true;
  for (size_t l = 0; l < net.size.size(); ++l)
    if (!in_factor[l] && !contains(net.output, static_cast<int>(l)))
      coef *= static_cast<double>(net.size[l]);
  const Node* r = contract_labeled({last.node}, {last.labels}, present);
  cost += static_cast<double>(r->numel());
  if (present.size() != net.output.size()) {
    std::vector<int64_t> axes;
    ir::Shape shape;
    for (size_t a = 0; a < net.output.size(); ++a) {
      shape.push_back(net.size[static_cast<size_t>(net.output[a])]);
      if (contains(present, net.output[a])) axes.push_back(static_cast<int64_t>(a));
    }
    r = ir::broadcast(r, shape, axes);
  }
  if (coef != 1) r = ir::scale(r, coef);
  if (cost >= net.cost) return nullptr;
  return r;
}

}  // namespace

ir::Function reassociate_contractions(const ir::Function& f) {
  std::vector<const Node*> roots = f.output_nodes();
  std::unordered_map<const Node*, int> uses = ir::use_counts(roots);
  // A product whose only user is a product is inside that user's tree.
  std::unordered_map<const Node*, bool> inner;
  std::vector<const Node*> order = ir::topo_order(roots);
  for (const Node* n : order)
    if (is_product(n))
      for (const Node* o : n->operands())
        if (uses.at(o) == 1 && is_product(o)) inner[o] = true;
  for (const Node* r : roots) inner[r] = false;  // an output is always a root

  Flattener flattener(uses);
  std::unordered_map<const Node*, const Node*> done;
  std::vector<const Node*> ops;
  for (const Node* n : order) {
    ops.clear();
    for (const Node* o : n->operands()) ops.push_back(done.at(o));
    const Node* rebuilt = ir::rebuild(n, ops);
    done[n] = rebuilt;
    if (is_product(n) && !inner[n]) {
      Network net = flattener.flatten(n);
      if (const Node* better = plan(net, done)) done[n] = better;
    }
  }
  std::vector<const Node*> out;
  for (const Node* r : roots) out.push_back(done.at(r));
  return f.with_output_nodes(out);
}

}  // namespace plastic::passes
