// Product trees as tensor networks (see product_network.h).
#include "compiler/passes/product_network.h"

#include <algorithm>
#include <unordered_map>

#include "compiler/ir/einsum.h"
#include "compiler/ir/ops.h"

namespace plastic::passes::detail {
using ir::Op;

bool is_product(const Node* n) {
  if (!ir::is_float(n->dtype())) return false;
  switch (n->op()) {
  case Op::Contract:
  case Op::Mul:
  case Op::Neg:
  case Op::Broadcast:
  case Op::ReduceSum:
    return true;
  default:
    return false;
  }
}

bool is_sum(const Node* n) {
  return n->op() == Op::Add || n->op() == Op::Sub;
}

namespace {

// Limits of the deep expansion (it multiplies terms out).
constexpr size_t kMaxTerms = 16;
constexpr size_t kMaxFactors = 12;

bool contains(const Labels& ls, int l) {
  return std::find(ls.begin(), ls.end(), l) != ls.end();
}

// A diagonal factor: a splat or a broadcast (a scaling along some axes).
// Multiplying by one keeps a sum of low-rank terms a sum of low-rank terms.
bool is_scalar_like(const Node* n) {
  return n->is_splat() || n->op() == Op::Broadcast;
}

class Flattener {
public:
  Flattener(const std::unordered_map<const Node*, int>& uses,
            const std::function<const Node*(const Node*)>& resolve, bool deep)
      : uses_(uses), resolve_(resolve), deep_(deep) {}

  Network flatten(const Node* root) {
    Network net;
    net_ = &net;
    for (int64_t d : root->shape())
      net.output.push_back(new_label(d));
    net.terms = expand(root, net.output, true, false);
    return net;
  }

private:
  int new_label(int64_t size) {
    net_->size.push_back(size);
    return static_cast<int>(net_->size.size() - 1);
  }

  int uses_count(const Node* n) const {
    auto it = uses_.find(n);
    return it == uses_.end() ? 1 : it->second;
  }
  bool single_use(const Node* n) const { return uses_count(n) == 1; }

  // Structure worth contracting through even when shared: products whose
  // operands are all smaller than the result (outer products, broadcasts).
  bool low_rank(const Node* n) {
    if (auto it = low_rank_.find(n); it != low_rank_.end()) return it->second;
    bool r = false;
    switch (n->op()) {
    case Op::Broadcast:
      r = n->operand(0)->numel() < n->numel();
      break;
    case Op::Neg:
      r = low_rank(n->operand(0));
      break;
    case Op::Contract:
      r = std::all_of(n->operands().begin(), n->operands().end(),
                      [&](const Node* o) { return o->numel() < n->numel(); });
      break;
    case Op::Mul:
      r = low_rank(n->operand(0)) || low_rank(n->operand(1));
      break;
    default:
      break;
    }
    return low_rank_[n] = r;
  }

  static std::vector<Term> opaque(const Node* n, const Labels& ls) {
    return {Term{1, {Factor{n, ls}}, {}}};
  }

  // Products of two term lists (distributing); false if over the limits.
  static bool cross(std::vector<Term>& acc, const std::vector<Term>& more) {
    if (acc.size() * more.size() > kMaxTerms) return false;
    std::vector<Term> out;
    for (const Term& a : acc)
      for (const Term& b : more) {
        Term t = a;
        t.coef *= b.coef;
        t.factors.insert(t.factors.end(), b.factors.begin(), b.factors.end());
        t.summed.insert(t.summed.end(), b.summed.begin(), b.summed.end());
        if (t.factors.size() > kMaxFactors) return false;
        out.push_back(std::move(t));
      }
    acc = std::move(out);
    return true;
  }

  // Summands of a tree of adds, subs and negations, with signs.
  void summands(const Node* n, double sign, std::vector<std::pair<double, const Node*>>& out) {
    if (out.size() > kMaxTerms) return;
    if (is_sum(n)) {
      summands(n->operand(0), sign, out);
      summands(n->operand(1), n->op() == Op::Sub ? -sign : sign, out);
    } else if (n->op() == Op::Neg && is_sum(n->operand(0))) {
      summands(n->operand(0), -sign, out);
    } else {
      out.emplace_back(sign, n);
    }
  }

  // A sum is split into its low-rank summands, each expanded, and the rest,
  // re-summed into one opaque factor: contracting through a full-rank
  // summand costs the same as through the whole sum, so only the low-rank
  // ones gain from distribution.
  std::vector<Term> expand_sum_terms(const Node* n, const Labels& ls, bool below_product) {
    std::vector<std::pair<double, const Node*>> parts;
    summands(n, 1.0, parts);
    if (parts.size() > kMaxTerms) return opaque(n, ls);
    std::vector<Term> terms;
    const Node* rest = nullptr;
    for (const auto& [sign, x] : parts) {
      const Node* r = resolve_(x);
      if (r->is_splat() || low_rank(r)) {
        std::vector<Term> t = expand(r, ls, false, below_product);
        for (Term& term : t)
          term.coef *= sign;
        terms.insert(terms.end(), t.begin(), t.end());
      } else if (!rest) {
        rest = sign > 0 ? r : ir::neg(r);
      } else {
        rest = sign > 0 ? ir::add(rest, r) : ir::sub(rest, r);
      }
    }
    if (terms.empty() || terms.size() + 1 > kMaxTerms) return opaque(n, ls);
    if (rest) terms.push_back(Term{1, {Factor{rest, ls}}, {}});
    return terms;
  }

  // `below_product`: a non-scalar product was expanded above (sums are only
  // distributed at the top of a tree, so expansion cannot blow up).
  std::vector<Term> expand(const Node* n, const Labels& ls, bool is_root, bool below_product) {
    n = resolve_(n);
    if (n->is_splat() && ir::is_float(n->dtype())) return {Term{n->attrs().reals[0], {}, {}}};
    bool expand_product = is_product(n) && (is_root || single_use(n) || (deep_ && low_rank(n)));
    bool expand_sum = deep_ && is_sum(n) && !below_product;
    if (!expand_product && !expand_sum) return opaque(n, ls);
    if (expand_sum) return expand_sum_terms(n, ls, below_product);

    switch (n->op()) {
    case Op::Neg: {
      std::vector<Term> t = expand(n->operand(0), ls, false, below_product);
      for (Term& x : t)
        x.coef = -x.coef;
      return t;
    }
    case Op::Broadcast: {
      Labels inner;
      for (int64_t a : n->attrs().ints)
        inner.push_back(ls[static_cast<size_t>(a)]);
      return expand(n->operand(0), inner, false, below_product);
    }
    case Op::Mul: {
      const Node *a = n->operand(0), *b = n->operand(1);
      bool under = below_product || !(is_root || is_scalar_like(a) || is_scalar_like(b));
      std::vector<Term> acc = expand(a, ls, false, under);
      if (!cross(acc, expand(b, ls, false, under))) return opaque(n, ls);
      return acc;
    }
    case Op::ReduceSum: {
      const Node* x = n->operand(0);
      Labels inner, fresh;
      const auto& axes = n->attrs().ints;
      for (int64_t a = 0, k = 0; a < x->rank(); ++a) {
        if (std::find(axes.begin(), axes.end(), a) != axes.end()) {
          inner.push_back(new_label(x->shape()[static_cast<size_t>(a)]));
          fresh.push_back(inner.back());
        } else {
          inner.push_back(ls[static_cast<size_t>(k++)]);
        }
      }
      std::vector<Term> t = expand(x, inner, false, true);
      for (Term& x2 : t)
        x2.summed.insert(x2.summed.end(), fresh.begin(), fresh.end());
      return t;
    }
    case Op::Contract: {
      ir::EinsumSpec spec = ir::EinsumSpec::parse(n->attrs().str);
      std::vector<int> rename(static_cast<size_t>(spec.label_bound()), -1);
      for (size_t j = 0; j < spec.output.size(); ++j)
        rename[static_cast<size_t>(spec.output[j])] = ls[j];
      Labels fresh;
      for (size_t k = 0; k < spec.inputs.size(); ++k)
        for (size_t a = 0; a < spec.inputs[k].size(); ++a) {
          int& r = rename[static_cast<size_t>(spec.inputs[k][a])];
          if (r < 0) {
            r = new_label(n->operand(k)->shape()[a]);
            fresh.push_back(r);
          }
        }
      std::vector<Term> acc{Term{}};
      for (size_t k = 0; k < spec.inputs.size(); ++k) {
        Labels inner;
        for (int l : spec.inputs[k])
          inner.push_back(rename[static_cast<size_t>(l)]);
        bool scalar = spec.inputs.size() == 2 && is_scalar_like(n->operand(1 - k));
        bool under = below_product || !(is_root || scalar);
        if (!cross(acc, expand(n->operand(k), inner, false, under))) return opaque(n, ls);
      }
      for (Term& t : acc)
        t.summed.insert(t.summed.end(), fresh.begin(), fresh.end());
      return acc;
    }
    default:
      return opaque(n, ls);
    }
  }

  const std::unordered_map<const Node*, int>& uses_;
  const std::function<const Node*(const Node*)>& resolve_;
  bool deep_;
  Network* net_ = nullptr;
  std::unordered_map<const Node*, bool> low_rank_;
};

// Contraction of labelled operands onto `out` (labels renumbered locally so
// any number of network labels fits the 52 letters of a spec).
const Node* contract_labeled(const std::vector<const Node*>& ops, const std::vector<Labels>& ls,
                             const Labels& out) {
  std::unordered_map<int, int> local;
  auto map = [&](const Labels& v) {
    Labels r;
    for (int l : v)
      r.push_back(local.emplace(l, static_cast<int>(local.size())).first->second);
    return r;
  };
  ir::EinsumSpec spec;
  for (const Labels& v : ls)
    spec.inputs.push_back(map(v));
  spec.output = map(out);
  return ir::contract(spec, ops);
}

// Greedy pairwise plan of one term. With `build` false only the cost is
// computed; otherwise the term is built.
const Node* plan_term(const Network& net, const Term& term, double& cost, bool build,
                      ir::Context* ctx, ir::DType dtype) {
  struct Item {
    const Node* node;
    Labels labels;
  };
  std::vector<Item> items;
  items.reserve(term.factors.size());
  for (const Factor& f : term.factors)
    items.push_back({f.node, f.labels});
  auto size_of = [&](int l) { return static_cast<double>(net.size[static_cast<size_t>(l)]); };
  double out_numel = 1;
  for (int l : net.output)
    out_numel *= size_of(l);

  double coef = term.coef;
  for (int l : term.summed) { // summed labels no factor carries
    bool carried = false;
    for (const Item& it : items)
      carried = carried || contains(it.labels, l);
    if (!carried) coef *= size_of(l);
  }
  if (items.empty()) {
    if (!build) return nullptr;
    ir::Shape shape;
    for (int l : net.output)
      shape.push_back(net.size[static_cast<size_t>(l)]);
    return ctx->constant(coef, shape, dtype);
  }
  // A coefficient scales the smallest factor, not the result.
  if (coef != 1 && coef != -1) {
    size_t small = 0;
    auto numel = [&](const Labels& ls) {
      double n = 1;
      for (int l : ls)
        n *= size_of(l);
      return n;
    };
    for (size_t i = 1; i < items.size(); ++i)
      if (numel(items[i].labels) < numel(items[small].labels)) small = i;
    cost += numel(items[small].labels);
    if (build) items[small].node = ir::scale(items[small].node, coef);
    coef = 1;
  }
  while (items.size() > 1) {
    size_t bi = 0, bj = 1;
    double best = -1, best_out = 0;
    Labels best_keep;
    for (size_t i = 0; i < items.size(); ++i)
      for (size_t j = i + 1; j < items.size(); ++j) {
        Labels keep, all;
        for (const Labels* side : {&items[i].labels, &items[j].labels})
          for (int l : *side) {
            if (contains(all, l)) continue;
            all.push_back(l);
            bool needed = contains(net.output, l);
            for (size_t k = 0; k < items.size() && !needed; ++k)
              needed = k != i && k != j && contains(items[k].labels, l);
            if (needed) keep.push_back(l);
          }
        double loop = 1, out = 1;
        for (int l : all)
          loop *= size_of(l);
        for (int l : keep)
          out *= size_of(l);
        if (best < 0 || loop < best || (loop == best && out < best_out)) {
          best = loop;
          best_out = out;
          bi = i;
          bj = j;
          best_keep = keep;
        }
      }
    cost += best;
    const Node* c = nullptr;
    if (build)
      c = contract_labeled({items[bi].node, items[bj].node}, {items[bi].labels, items[bj].labels},
                           best_keep);
    items.erase(items.begin() + static_cast<long>(bj));
    items[bi] = {c, best_keep};
  }
  Labels present;
  for (int l : net.output)
    if (contains(items[0].labels, l)) present.push_back(l);
  if (present != items[0].labels) {
    double touched = 1;
    for (int l : items[0].labels)
      touched *= size_of(l);
    cost += touched;
  }
  if (coef != 1) cost += out_numel; // only a sign is left
  if (!build) return nullptr;
  const Node* r = contract_labeled({items[0].node}, {items[0].labels}, present);
  if (present.size() != net.output.size()) {
    std::vector<int64_t> axes;
    ir::Shape shape;
    for (size_t a = 0; a < net.output.size(); ++a) {
      shape.push_back(net.size[static_cast<size_t>(net.output[a])]);
      if (contains(present, net.output[a])) axes.push_back(static_cast<int64_t>(a));
    }
    r = ir::broadcast(r, shape, axes);
  }
  if (coef == -1) return ir::neg(r);
  return coef == 1 ? r : ir::scale(r, coef);
}

} // namespace

Network flatten_product(const Node* root, const UseCounts& uses, const Resolve& resolve,
                        bool deep) {
  return Flattener(uses, resolve, deep).flatten(root);
}

const Node* build(const Network& net, const Node* root) {
  const Node* sum = nullptr;
  for (const Term& t : net.terms) {
    double ignored = 0;
    // Build the positive term and subtract it, so signs fold into the sum.
    Term pos = t;
    bool negative = t.coef < 0;
    if (negative) pos.coef = -pos.coef;
    const Node* r = plan_term(net, pos, ignored, true, &root->context(), root->dtype());
    if (!sum)
      sum = negative ? ir::neg(r) : r;
    else
      sum = negative ? ir::sub(sum, r) : ir::add(sum, r);
  }
  return sum;
}

double own_cost(const Node* n) {
  if (n->is_leaf() || n->is_constant() || n->op() == Op::Broadcast || n->op() == Op::Reshape)
    return 0;
  if (n->op() == Op::ReduceSum || n->op() == Op::ReduceMax)
    return static_cast<double>(n->operand(0)->numel());
  if (n->op() != Op::Contract) return static_cast<double>(n->numel());
  ir::EinsumSpec spec = ir::EinsumSpec::parse(n->attrs().str);
  std::vector<int64_t> size(static_cast<size_t>(spec.label_bound()), 1);
  for (size_t k = 0; k < spec.inputs.size(); ++k)
    for (size_t a = 0; a < spec.inputs[k].size(); ++a)
      size[static_cast<size_t>(spec.inputs[k][a])] = n->operand(k)->shape()[a];
  double loop = 1;
  for (int64_t v : size)
    loop *= static_cast<double>(v);
  return loop;
}

} // namespace plastic::passes::detail
