// Recognising θ-gradient nests as GEMMs over the lanes (bilinear.h).
#include "compiler/loops/bilinear.h"

#include <algorithm>

namespace plastic::loops {

namespace {

/// Which loops of the nest an expression depends on.
struct Deps {
  bool row = false;
  bool col = false;
};

class Matcher {
public:
  Matcher(const Function& fn, const std::vector<uint32_t>& row_loops, uint32_t col_loop)
      : fn_(fn), row_loops_(row_loops), col_loop_(col_loop) {}

  // Splits a sum of terms; false if some part is not a term ± X(r) Y(c).
  bool split_sum(uint32_t e, bool negate, std::vector<BilinearTerm>& out) {
    const ExprNode& n = fn_.exprs[e];
    const Deps d = deps(e);
    if (d.row && d.col) {
      if (n.kind == ExprKind::Binary && n.binary_op() == BinaryOp::Add)
        return split_sum(n.args[0], negate, out) && split_sum(n.args[1], negate, out);
      if (n.kind == ExprKind::Binary && n.binary_op() == BinaryOp::Sub)
        return split_sum(n.args[0], negate, out) && split_sum(n.args[1], !negate, out);
      if (n.kind == ExprKind::Fma) {
        BilinearTerm t;
        t.negate = negate;
        return split_product(n.args[0], t) && split_product(n.args[1], t) && finish(t, out) &&
               split_sum(n.args[2], negate, out);
      }
    }
    if (n.kind == ExprKind::Unary && n.unary_op() == UnaryOp::Neg)
      return split_sum(n.args[0], !negate, out);
    BilinearTerm t;
    t.negate = negate;
    return split_product(e, t) && finish(t, out);
  }

private:
  // Splits a product into the factors of each side.
  bool split_product(uint32_t e, BilinearTerm& t) {
    const ExprNode& n = fn_.exprs[e];
    const Deps d = deps(e);
    if (!d.row || !d.col) {
      (d.row ? t.row_factors : t.col_factors).push_back(e);
      return true;
    }
    if (n.kind == ExprKind::Binary && n.binary_op() == BinaryOp::Mul)
      return split_product(n.args[0], t) && split_product(n.args[1], t);
    if (n.kind == ExprKind::Unary && n.unary_op() == UnaryOp::Neg) {
      t.negate = !t.negate;
      return split_product(n.args[0], t);
    }
    return false;
  }

  // A term needs a varying X side and a Y side that varies with the column.
  bool finish(BilinearTerm& t, std::vector<BilinearTerm>& out) {
    bool row_varying = false, col_dependent = false;
    for (uint32_t f : t.row_factors)
      row_varying = row_varying || fn_.exprs[f].lanes == Lanes::Varying;
    for (uint32_t f : t.col_factors)
      col_dependent = col_dependent || deps(f).col;
    if (!row_varying || !col_dependent) return false;
    out.push_back(std::move(t));
    return true;
  }

  Deps deps(uint32_t e) {
    const ExprNode& n = fn_.exprs[e];
    Deps d;
    if (n.kind == ExprKind::Load)
      for (const Index::Term& term : fn_.indices[n.index].terms) {
        d.col = d.col || term.loop == col_loop_;
        d.row = d.row || std::ranges::find(row_loops_, term.loop) != row_loops_.end();
      }
    for (int k = 0; k < n.arity(); ++k) {
      const Deps a = deps(n.args[static_cast<size_t>(k)]);
      d.row = d.row || a.row;
      d.col = d.col || a.col;
    }
    return d;
  }

  const Function& fn_;
  const std::vector<uint32_t>& row_loops_;
  uint32_t col_loop_;
};

// The one statement of a body that is not a comment, if there is exactly one.
const Stmt* only_statement(const std::vector<Stmt>& body) {
  const Stmt* only = nullptr;
  for (const Stmt& s : body) {
    if (s.kind == StmtKind::Comment) continue;
    if (only) return nullptr;
    only = &s;
  }
  return only;
}

} // namespace

int64_t BilinearLaneSum::columns(const Function& fn) const {
  return fn.loops[col_loop].end - fn.loops[col_loop].begin;
}

int64_t BilinearLaneSum::rows(const Function& fn) const {
  int64_t n = 1;
  for (uint32_t r : row_loops)
    n *= fn.loops[r].end - fn.loops[r].begin;
  return n;
}

std::optional<int64_t> BilinearLaneSum::row_stride(const Function& fn, const Index& index) const {
  auto stride_of = [&](uint32_t loop) {
    for (const Index::Term& t : index.terms)
      if (t.loop == loop) return t.stride;
    return int64_t{0};
  };
  const int64_t stride = stride_of(row_loops.back());
  int64_t inner = 1; // iterations of the row loops inside this one
  for (auto it = row_loops.rbegin(); it != row_loops.rend(); ++it) {
    if (stride_of(*it) != stride * inner) return std::nullopt;
    inner *= fn.loops[*it].end - fn.loops[*it].begin;
  }
  return stride;
}

std::optional<BilinearLaneSum> match_bilinear_lane_sum(const Function& fn, const Stmt& loop) {
  std::vector<uint32_t> nest;
  const Stmt* s = &loop;
  while (s && s->kind == StmtKind::Loop) {
    nest.push_back(s->target);
    s = only_statement(s->body);
  }
  if (!s || s->kind != StmtKind::Store || s->mode != StoreMode::AddLaneSum || nest.size() < 2 ||
      fn.exprs[s->value].lanes != Lanes::Varying || expr_reads(fn, s->value, s->target))
    return std::nullopt;

  BilinearLaneSum m;
  m.store = s;
  // The column loop: the innermost loop of the nest with unit stride.
  for (const Index::Term& term : fn.indices[s->index].terms)
    if (term.stride == 1 && std::ranges::find(nest, term.loop) != nest.end() &&
        (m.col_loop == kNone ||
         std::ranges::find(nest, term.loop) > std::ranges::find(nest, m.col_loop)))
      m.col_loop = term.loop;
  if (m.col_loop == kNone) return std::nullopt;
  for (uint32_t l : nest)
    if (l != m.col_loop) m.row_loops.push_back(l);

  Matcher matcher(fn, m.row_loops, m.col_loop);
  if (!matcher.split_sum(s->value, false, m.terms) || m.terms.empty()) return std::nullopt;
  return m;
}

} // namespace plastic::loops
