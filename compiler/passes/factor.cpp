// Factoring sums of products that share an operand (see factor.h).
#include "compiler/passes/factor.h"

#include <unordered_map>
#include <vector>

#include "compiler/ir/ops.h"
#include "compiler/ir/traversal.h"

namespace plastic::passes {
using ir::Node;
using ir::Op;

namespace {

using UseCounts = std::unordered_map<const Node*, int>;

/// A signed term of a sum: the rewritten node, and the original node it
/// stands for while it is one (null once terms were merged).
struct Term {
  bool negative = false;
  const Node* node = nullptr;
  const Node* source = nullptr;
};

bool is_sum(const Node* n) {
  return n->op() == Op::Add || n->op() == Op::Sub;
}

/// The signed terms of the sum `root`, descending through additions,
/// subtractions and negations of the root's shape that nothing else uses.
/// Terms hold original nodes (node and source alike).
std::vector<Term> flatten(const Node* root, const UseCounts& uses) {
  std::vector<Term> terms;
  std::vector<Term> stack{{false, root, root}};
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
      stack.push_back({!t.negative, n->operand(0), n->operand(0)});
    } else {
      const Node *a = n->operand(0), *b = n->operand(1);
      if (a->shape() != root->shape() || b->shape() != root->shape()) { // broadcasting: keep whole
        terms.push_back(t);
        continue;
      }
      stack.push_back({n->op() == Op::Sub ? !t.negative : t.negative, b, b});
      stack.push_back({t.negative, a, a});
    }
  }
  return terms;
}

/// Whether `n` is a product one operand of which can be factored out: a
/// binary contraction or an elementwise product.
bool is_product(const Node* n) {
  return (n->op() == Op::Contract || n->op() == Op::Mul) && n->num_operands() == 2;
}

/// The operand of product `n` that is not at `pos`.
const Node* other_operand(const Node* n, int pos) {
  return n->operand(static_cast<size_t>(1 - pos));
}

/// Where product `n` holds `shared`: at `pos`, or for an elementwise product
/// (which commutes) at either side; -1 if it does not.
int position_of(const Node* n, const Node* shared, int pos) {
  if (n->operand(static_cast<size_t>(pos)) == shared) return pos;
  if (n->op() == Op::Mul && n->operand(static_cast<size_t>(1 - pos)) == shared) return 1 - pos;
  return -1;
}

/// The sum of signed terms, left to right.
const Node* sum(const std::vector<Term>& terms) {
  const Node* acc = terms[0].negative ? ir::neg(terms[0].node) : terms[0].node;
  for (size_t i = 1; i < terms.size(); ++i)
    acc = terms[i].negative ? ir::sub(acc, terms[i].node) : ir::add(acc, terms[i].node);
  return acc;
}

/// Merges the terms of one sum that share an operand. Only terms whose
/// product nothing else uses take part: a product still needed elsewhere
/// would be computed twice, once alone and once inside the merged one.
class Factoring {
public:
  explicit Factoring(const UseCounts& uses) : uses_(uses) {}

  /// `terms` with every group sharing an operand merged, largest first;
  /// `merged` says whether any was.
  std::vector<Term> factored(std::vector<Term> terms, bool& merged) const {
    for (;;) {
      auto [group, pos] = largest_group(terms);
      if (group.empty()) return terms;
      terms[group[0]] = merge(terms, group, pos);
      for (size_t k = group.size(); k-- > 1;)
        terms.erase(terms.begin() + static_cast<std::ptrdiff_t>(group[k]));
      merged = true;
    }
  }

private:
  bool single_use_product(const Term& t) const {
    return t.source != nullptr && uses_.at(t.source) == 1 && is_product(t.node);
  }

  /// Whether terms `a` and `b` are products of one kind sharing `a`'s
  /// operand at `pos`, with other operands that can be added.
  bool share(const Term& a, const Term& b, int pos) const {
    if (!single_use_product(a) || !single_use_product(b) || a.node->op() != b.node->op())
      return false;
    const Node* shared = a.node->operand(static_cast<size_t>(pos));
    const int b_pos = position_of(b.node, shared, pos);
    if (b_pos < 0) return false;
    if (a.node->op() == Op::Contract && a.node->attrs().str != b.node->attrs().str) return false;
    const Node *oa = other_operand(a.node, pos), *ob = other_operand(b.node, b_pos);
    return oa->shape() == ob->shape() && oa->dtype() == ob->dtype();
  }

  /// The largest group of terms sharing an operand (ties: the one starting
  /// first), as indices into `terms`, and the shared position; empty if no
  /// two terms share one.
  std::pair<std::vector<size_t>, int> largest_group(const std::vector<Term>& terms) const {
    std::vector<size_t> best;
    int best_pos = 0;
    for (size_t i = 0; i < terms.size(); ++i)
      for (int pos = 0; pos < 2; ++pos) {
        std::vector<size_t> group{i};
        for (size_t j = i + 1; j < terms.size(); ++j)
          if (share(terms[i], terms[j], pos)) group.push_back(j);
        if (group.size() >= 2 && group.size() > best.size()) {
          best = std::move(group);
          best_pos = pos;
        }
      }
    return {best, best_pos};
  }

  /// The group's terms as one product: the shared operand times the signed
  /// sum of the others — itself factored, since the others of rk4's two
  /// stages at one time node are often products sharing h — signed as the
  /// group's first term.
  Term merge(const std::vector<Term>& terms, const std::vector<size_t>& group, int pos) const {
    const Term& first = terms[group[0]];
    const Node* shared = first.node->operand(static_cast<size_t>(pos));
    std::vector<Term> others;
    for (size_t k : group) {
      const int at = position_of(terms[k].node, shared, pos);
      others.push_back({terms[k].negative != first.negative, other_operand(terms[k].node, at),
                        other_operand(terms[k].source, at)});
    }
    bool merged_others = false;
    const Node* other_sum = sum(factored(std::move(others), merged_others));
    std::vector<const Node*> ops = {other_sum, other_sum};
    ops[static_cast<size_t>(pos)] = shared;
    const Node* product = first.node->op() == Op::Mul ? ir::mul(ops[0], ops[1])
                                                      : ir::contract(first.node->attrs().str, ops);
    return {first.negative, product, nullptr};
  }

  const UseCounts& uses_;
};

/// `original` (a sum) rebuilt on already-rewritten terms with every group of
/// terms sharing an operand merged; `rebuilt` when there is none.
const Node* factor_sum(const Node* original, const Node* rebuilt, const UseCounts& uses,
                       const std::unordered_map<const Node*, const Node*>& done) {
  std::vector<Term> terms = flatten(original, uses);
  for (Term& t : terms)
    t.node = done.at(t.node);
  bool merged = false;
  terms = Factoring(uses).factored(std::move(terms), merged);
  return merged ? sum(terms) : rebuilt;
}

} // namespace

ir::Function factor_shared_operands(const ir::Function& f) {
  const std::vector<const Node*> roots = f.output_nodes();
  const UseCounts uses = ir::use_counts(roots);
  std::unordered_map<const Node*, const Node*> done; // original -> rewritten
  std::vector<const Node*> out = ir::rewrite(roots, [&](const Node* original, const Node* rebuilt) {
    const Node* result = is_sum(original) ? factor_sum(original, rebuilt, uses, done) : rebuilt;
    done[original] = result;
    return result;
  });
  return f.with_output_nodes(out);
}

} // namespace plastic::passes
