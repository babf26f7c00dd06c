// FLOP counts of loop-IR kernels (see flops.h).
#include "compiler/abi/flops.h"

#include <unordered_set>

namespace plastic::abi {

namespace {

using loops::ExprKind;

struct Counter {
  const loops::Function& fn;

  double expr_flops(uint32_t root) const {
    std::unordered_set<uint32_t> seen;
    std::vector<uint32_t> stack{root};
    double total = 0;
    while (!stack.empty()) {
      uint32_t id = stack.back();
      stack.pop_back();
      if (id == loops::kNone || !seen.insert(id).second) continue;
      const loops::ExprNode& e = fn.exprs.at(id);
      double lanes = e.lanes == loops::Lanes::Varying ? fn.lanes : 1;
      switch (e.kind) {
      case ExprKind::Unary:
      case ExprKind::Binary:
        total += lanes;
        break;
      case ExprKind::Fma:
        total += 2 * lanes;
        break;
      default:
        break;
      }
      for (uint32_t a : e.args)
        stack.push_back(a);
    }
    return total;
  }

  double stmts(const std::vector<loops::Stmt>& body) const {
    double total = 0;
    for (const loops::Stmt& s : body) {
      switch (s.kind) {
      case loops::StmtKind::Loop: {
        const loops::LoopDecl& l = fn.loops.at(s.target);
        total += static_cast<double>(l.end - l.begin) * stmts(s.body);
        break;
      }
      case loops::StmtKind::IfPresent:
        total += stmts(s.body);
        break;
      case loops::StmtKind::Assign:
        total += expr_flops(s.value);
        break;
      case loops::StmtKind::Store: {
        total += expr_flops(s.value);
        const loops::ExprNode& v = fn.exprs.at(s.value);
        double lanes = v.lanes == loops::Lanes::Varying ? fn.lanes : 1;
        if (s.mode != loops::StoreMode::Set) total += lanes;
        break;
      }
      case loops::StmtKind::Comment:
      case loops::StmtKind::Prefetch:
        break;
      }
    }
    return total;
  }
};

} // namespace

double count_flops(const loops::Function& fn) {
  return Counter{fn}.stmts(fn.body);
}

} // namespace plastic::abi
