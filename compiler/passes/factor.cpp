// Factoring sums of products that share an operand (see factor.h).
#include "compiler/passes/factor.h"

#include <optional>
#include <unordered_map>
#include <vector>

#include "compiler/ir/ops.h"
#include "compiler/ir/traversal.h"

namespace plastic::passes {
using ir::Node;
using ir::Op;

namespace {

struct Term {
  bool negative = false;
  const Node* node = nullptr;
};

/// A product one of whose operands can be factored out: its other operand
/// and how to rebuild the product around a replacement of it.
struct Product {
  const Node* shared = nullptr;
  const Node* other = nullptr;
  int shared_pos = 0; ///< 0 or 1
};

bool is_sum(const Node* n) {
  return n->op() == Op::Add || n->op() == Op::Sub;
}

/// The signed terms of the sum `root`, descending through additions,
/// subtractions and negations of the root's shape that nothing else uses.
std::vector<Term> flatten(const Node* root, const std::unordered_map<const Node*, int>& uses) {
  std::vector<Term> terms;
  std::vector<Term> stack{{false, root}};
  while (!stack.empty()) {
    const Term t = stack.back();
    stack.pop_back();
    const Node* n = t.node;
    const bool expand = n == root || (uses.at(n) == 1 && n->shape() == root->shape() &&
                                      (is_sum(n) || n->op() == Op::Neg));
    if (!expand) {
      terms.push_back(t);
      continue;
    }
    // Pushed right to left so that terms come out in source order.
    if (n->op() == Op::Neg) {
      stack.push_back({!t.negative, n->operand(0)});
    } else {
      const Node *a = n->operand(0), *b = n->operand(1);
      if (a->shape() != root->shape() || b->shape() != root->shape()) { // broadcasting: keep whole
        terms.push_back(t);
        continue;
      }
      stack.push_back({n->op() == Op::Sub ? !t.negative : t.negative, b});
      stack.push_back({t.negative, a});
    }
  }
  return terms;
}

/// `n` as a product with `n->operand(pos)` shared, if it is a binary
/// contraction or an elementwise product.
std::optional<Product> as_product(const Node* n, int pos) {
  if ((n->op() != Op::Contract && n->op() != Op::Mul) || n->num_operands() != 2) return {};
  return Product{n->operand(static_cast<size_t>(pos)), n->operand(static_cast<size_t>(1 - pos)),
                 pos};
}

/// Whether terms `a` and `b` are products of one kind sharing the operand at
/// `pos`, with other operands that can be added.
bool share(const Node* a, const Node* b, int pos) {
  std::optional<Product> pa = as_product(a, pos), pb = as_product(b, pos);
  if (!pa || !pb || a->op() != b->op() || pa->shared != pb->shared) return false;
  if (a->op() == Op::Contract && a->attrs().str != b->attrs().str) return false;
  return pa->other->shape() == pb->other->shape() && pa->other->dtype() == pb->other->dtype();
}

/// The largest group of terms sharing an operand (ties: the one starting
/// first), as indices into `terms`, and the shared position; empty if no
/// two terms share one.
std::pair<std::vector<size_t>, int> largest_group(const std::vector<Term>& terms) {
  std::vector<size_t> best;
  int best_pos = 0;
  for (size_t i = 0; i < terms.size(); ++i)
    for (int pos = 0; pos < 2; ++pos) {
      std::vector<size_t> group{i};
      for (size_t j = i + 1; j < terms.size(); ++j)
        if (share(terms[i].node, terms[j].node, pos)) group.push_back(j);
      if (group.size() >= 2 && group.size() > best.size()) {
        best = std::move(group);
        best_pos = pos;
      }
    }
  return {best, best_pos};
}

/// The group's terms as one product: the shared operand times the signed
/// sum of the others, signed as the group's first term.
Term merge(const std::vector<Term>& terms, const std::vector<size_t>& group, int pos) {
  const Term& first = terms[group[0]];
  const Product p = *as_product(first.node, pos);
  const Node* others = p.other;
  for (size_t k = 1; k < group.size(); ++k) {
    const Term& t = terms[group[k]];
    const Node* other = as_product(t.node, pos)->other;
    others = t.negative == first.negative ? ir::add(others, other) : ir::sub(others, other);
  }
  std::vector<const Node*> ops = {others, others};
  ops[static_cast<size_t>(pos)] = p.shared;
  const Node* product = first.node->op() == Op::Mul ? ir::mul(ops[0], ops[1])
                                                    : ir::contract(first.node->attrs().str, ops);
  return {first.negative, product};
}

/// The sum of signed terms, left to right.
const Node* sum(const std::vector<Term>& terms) {
  const Node* acc = terms[0].negative ? ir::neg(terms[0].node) : terms[0].node;
  for (size_t i = 1; i < terms.size(); ++i)
    acc = terms[i].negative ? ir::sub(acc, terms[i].node) : ir::add(acc, terms[i].node);
  return acc;
}

/// `original` (a sum) rebuilt on already-rewritten terms with every group of
/// terms sharing an operand merged; `rebuilt` when there is none.
const Node* factor_sum(const Node* original, const Node* rebuilt,
                       const std::unordered_map<const Node*, int>& uses,
                       const std::unordered_map<const Node*, const Node*>& done) {
  std::vector<Term> terms = flatten(original, uses);
  for (Term& t : terms)
    t.node = done.at(t.node);
  bool merged = false;
  for (;;) {
    auto [group, pos] = largest_group(terms);
    if (group.empty()) break;
    terms[group[0]] = merge(terms, group, pos);
    for (size_t k = group.size(); k-- > 1;)
      terms.erase(terms.begin() + static_cast<std::ptrdiff_t>(group[k]));
    merged = true;
  }
  return merged ? sum(terms) : rebuilt;
}

} // namespace

ir::Function factor_shared_operands(const ir::Function& f) {
  const std::vector<const Node*> roots = f.output_nodes();
  const std::unordered_map<const Node*, int> uses = ir::use_counts(roots);
  std::unordered_map<const Node*, const Node*> done; // original -> rewritten
  std::vector<const Node*> out = ir::rewrite(roots, [&](const Node* original, const Node* rebuilt) {
    const Node* result = is_sum(original) ? factor_sum(original, rebuilt, uses, done) : rebuilt;
    done[original] = result;
    return result;
  });
  return f.with_output_nodes(out);
}

} // namespace plastic::passes
