// FLOP counts of loop-IR kernels (see flops.h).
#include "compiler/model/assemble/flops.h"

#include <unordered_set>

namespace plastic::model {

namespace {

using codegen::ExprKind;

struct Counter {
  const codegen::Function& fn;

  double expr_flops(uint32_t root) const {
    std::unordered_set<uint32_t> seen;
    std::vector<uint32_t> stack{root};
    double total = 0;
    while (!stack.empty()) {
      uint32_t id = stack.back();
      stack.pop_back();
      if (id == codegen::kNone || !seen.insert(id).second) continue;
      const codegen::ExprNode& e = fn.exprs.at(id);
      double lanes = e.lanes == codegen::Lanes::Varying ? fn.lanes : 1;
      switch (e.kind) {
      case ExprKind::Unary:
      case ExprKind::Binary: total += lanes; break;
      case ExprKind::Fma: total += 2 * lanes; break;
      default: break;
      }
      for (uint32_t a : e.args) stack.push_back(a);
    }
    return total;
  }

  double stmts(const std::vector<codegen::Stmt>& body) const {
    double total = 0;
    for (const codegen::Stmt& s : body) {
      switch (s.kind) {
      case codegen::StmtKind::Loop: {
        const codegen::LoopDecl& l = fn.loops.at(s.target);
        total += static_cast<double>(l.end - l.begin) * stmts(s.body);
        break;
      }
      case codegen::StmtKind::IfPresent: total += stmts(s.body); break;
      case codegen::StmtKind::Assign: total += expr_flops(s.value); break;
      case codegen::StmtKind::Store: {
        total += expr_flops(s.value);
        const codegen::ExprNode& v = fn.exprs.at(s.value);
        double lanes = v.lanes == codegen::Lanes::Varying ? fn.lanes : 1;
        if (s.mode != codegen::StoreMode::Set) total += lanes;
        break;
      }
      case codegen::StmtKind::Comment: break;
      }
    }
    return total;
  }
};

}  // namespace

double count_flops(const codegen::Function& fn) { return Counter{fn}.stmts(fn.body); }

}  // namespace plastic::model
