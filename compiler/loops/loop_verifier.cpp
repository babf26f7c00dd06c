// Verifier of loop functions (loop_verifier.h).
//
// Declarations and expression nodes are checked once each; statements are
// walked in program order with the scope state (open loops, assigned
// variables, buffers known non-NULL), and each statement's expression tree is
// walked with that scope.
#include "compiler/loops/loop_verifier.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "compiler/loops/error.h"

namespace plastic::loops {

bool is_c_identifier(std::string_view s) {
  if (s.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(s[0])) return false;
  for (char c : s)
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

namespace {

class Verifier {
public:
  explicit Verifier(const Function& fn) : fn_(fn) {}

  std::vector<std::string> run() {
    check_header();
    check_buffers();
    check_exprs();
    if (problems_.empty()) { // scopes assume well-formed declarations and nodes
      Scope scope;
      loop_used_.assign(fn_.loops.size(), false);
      check_block(fn_.body, scope);
    }
    return std::move(problems_);
  }

private:
  struct Scope {
    std::vector<uint32_t> loops; // open loops, outermost first
    std::vector<bool> assigned;  // per variable
    std::set<uint32_t> present;  // nullable buffers known non-NULL here
  };

  template <class... A> void fail(fmt::format_string<A...> f, A&&... args) {
    problems_.push_back(fmt::format("function '{}': ", fn_.name) +
                        fmt::format(f, std::forward<A>(args)...));
  }

  void check_header() {
    if (!is_c_identifier(fn_.name)) fail("name is not a C identifier");
    if (fn_.lanes < 1 || fn_.lanes > 64) fail("lanes {} not in 1..64", fn_.lanes);
    std::set<std::string> names;
    int scratch = 0;
    for (uint32_t i = 0; i < fn_.params.size(); ++i) {
      const Param& p = fn_.params[i];
      if (!is_c_identifier(p.name)) fail("parameter {} name '{}' is not a C identifier", i, p.name);
      if (!names.insert(p.name).second) fail("duplicate parameter name '{}'", p.name);
      if (p.kind == ParamKind::Scratch) ++scratch;
      if (p.kind == ParamKind::Buffer) {
        if (p.buffer >= fn_.buffers.size() || fn_.buffers[p.buffer].param != i)
          fail("parameter '{}' does not own a buffer", p.name);
      } else if (p.buffer != kNone) {
        fail("non-buffer parameter '{}' refers to a buffer", p.name);
      }
    }
    if (scratch > 1) fail("{} scratch parameters", scratch);
  }

  void check_buffers() {
    const bool has_scratch = fn_.scratch_param() != kNone;
    if (fn_.scratch_bytes < 0 || fn_.scratch_bytes % 64 != 0)
      fail("scratch_bytes {} is not a non-negative multiple of 64", fn_.scratch_bytes);
    for (const BufferDecl& b : fn_.buffers) {
      if (b.size <= 0) fail("buffer '{}' has size {}", b.name, b.size);
      if (!b.is_scratch()) {
        if (b.param >= fn_.params.size() || fn_.params[b.param].buffer >= fn_.buffers.size() ||
            &fn_.buffers[fn_.params[b.param].buffer] != &b)
          fail("buffer '{}' is not owned by its parameter", b.name);
        continue;
      }
      if (!has_scratch) fail("scratch buffer '{}' without a scratch parameter", b.name);
      if (b.readonly || b.nullable)
        fail("scratch buffer '{}' marked read-only or nullable", b.name);
      const int64_t bytes = fn_.elements(b) * elem_size(fn_.type);
      if (b.scratch_offset < 0 || b.scratch_offset % 64 != 0 ||
          b.scratch_offset + bytes > fn_.scratch_bytes)
        fail("scratch buffer '{}' at offset {} ({} bytes) outside the {}-byte arena", b.name,
             b.scratch_offset, bytes, fn_.scratch_bytes);
    }
  }

  Lanes operand_lanes(const ExprNode& n) const {
    Lanes l = Lanes::Uniform;
    for (int k = 0; k < n.arity(); ++k)
      l = join(l, fn_.exprs[n.args[k]].lanes);
    return l;
  }

  void check_exprs() {
    for (uint32_t id = 0; id < fn_.exprs.size(); ++id) {
      const ExprNode& n = fn_.exprs[id];
      bool args_ok = true;
      for (int k = 0; k < n.arity(); ++k)
        if (n.args[k] >= id) { // operands precede their users: the node list is topological
          fail("expression %{} operand {} is %{}", id, k, n.args[k]);
          args_ok = false;
        }
      if (!args_ok) continue;
      Lanes expect = operand_lanes(n);
      bool mask = false;
      switch (n.kind) {
      case ExprKind::Const:
        break;
      case ExprKind::ScalarParam:
        if (n.ref >= fn_.params.size() || fn_.params[n.ref].kind != ParamKind::Scalar)
          fail("expression %{} reads parameter {} which is not a scalar", id, n.ref);
        break;
      case ExprKind::Load:
        if (n.ref >= fn_.buffers.size() || n.index >= fn_.indices.size()) {
          fail("expression %{} loads from an invalid buffer or index", id);
          continue;
        }
        expect = fn_.buffers[n.ref].lanes;
        break;
      case ExprKind::VarRef:
        if (n.ref >= fn_.vars.size()) {
          fail("expression %{} reads an invalid variable", id);
          continue;
        }
        expect = fn_.vars[n.ref].lanes;
        break;
      case ExprKind::Unary:
        if (n.op > static_cast<uint8_t>(UnaryOp::PowC))
          fail("expression %{}: invalid unary op", id);
        break;
      case ExprKind::Binary:
        if (n.op > static_cast<uint8_t>(BinaryOp::Max))
          fail("expression %{}: invalid binary op", id);
        break;
      case ExprKind::Compare:
        if (n.op > static_cast<uint8_t>(CompareOp::Ne))
          fail("expression %{}: invalid compare op", id);
        mask = true;
        break;
      case ExprKind::Fma:
        break;
      case ExprKind::Select:
        if (!fn_.exprs[n.args[0]].is_mask)
          fail("expression %{}: select condition is not a mask", id);
        break;
      }
      for (int k = n.kind == ExprKind::Select ? 1 : 0; k < n.arity(); ++k)
        if (fn_.exprs[n.args[k]].is_mask) fail("expression %{}: operand {} is a mask", id, k);
      if (n.is_mask != mask) fail("expression %{}: wrong mask flag", id);
      if (n.lanes != expect)
        fail("expression %{} is {} but its operands make it {}", id, lanes_name(n.lanes),
             lanes_name(expect));
    }
  }

  // ---- scoped checks -------------------------------------------------------------

  void check_index(const Index& index, const BufferDecl& b, const Scope& scope, const char* what) {
    int64_t lo = index.offset, hi = index.offset;
    for (const auto& t : index.terms) {
      const bool open =
          std::find(scope.loops.begin(), scope.loops.end(), t.loop) != scope.loops.end();
      if (t.loop >= fn_.loops.size() || !open) {
        fail("{} of '{}' uses a loop variable out of scope", what, b.name);
        return;
      }
      const LoopDecl& l = fn_.loops[t.loop];
      const int64_t a = t.stride * l.begin, z = t.stride * (l.end - 1);
      lo += std::min(a, z);
      hi += std::max(a, z);
    }
    if (lo < 0 || hi >= b.size)
      fail("{} of '{}' spans elements [{}, {}] outside [0, {})", what, b.name, lo, hi, b.size);
  }

  void check_access(uint32_t buf, uint32_t index, const Scope& scope, const char* what) {
    const BufferDecl& b = fn_.buffers[buf];
    if (b.nullable && !scope.present.count(buf))
      fail("{} of nullable '{}' outside if_present({})", what, b.name, b.name);
    check_index(fn_.indices[index], b, scope, what);
  }

  void check_expr_tree(uint32_t root, const Scope& scope) {
    std::vector<uint32_t> stack{root};
    std::set<uint32_t> seen;
    while (!stack.empty()) {
      const uint32_t id = stack.back();
      stack.pop_back();
      if (!seen.insert(id).second) continue;
      const ExprNode& n = fn_.exprs[id];
      if (n.kind == ExprKind::Load) check_access(n.ref, n.index, scope, "load");
      if (n.kind == ExprKind::VarRef && !scope.assigned[n.ref])
        fail("variable '{}' read before it is assigned", fn_.vars[n.ref].name);
      for (int k = 0; k < n.arity(); ++k)
        stack.push_back(n.args[k]);
    }
  }

  void check_value(uint32_t id, Scope& scope, const char* what) {
    if (id >= fn_.exprs.size()) {
      fail("{} of an invalid expression", what);
      return;
    }
    if (fn_.exprs[id].is_mask) fail("{} of a mask", what);
    check_expr_tree(id, scope);
  }

  void check_block(const std::vector<Stmt>& body, Scope& scope) {
    if (scope.assigned.empty()) scope.assigned.assign(fn_.vars.size(), false);
    for (const Stmt& s : body) {
      switch (s.kind) {
      case StmtKind::Comment:
        break;
      case StmtKind::Loop: {
        if (s.target >= fn_.loops.size() || loop_used_[s.target]) {
          fail("loop statement with an invalid or reused loop id");
          break;
        }
        loop_used_[s.target] = true;
        const LoopDecl& l = fn_.loops[s.target];
        if (l.end <= l.begin) fail("loop '{}' over empty range [{}, {})", l.name, l.begin, l.end);
        scope.loops.push_back(s.target);
        // The range is non-empty, so assignments in the body happen before
        // anything after the loop runs.
        check_block(s.body, scope);
        scope.loops.pop_back();
        break;
      }
      case StmtKind::Assign: {
        if (s.target >= fn_.vars.size()) {
          fail("assignment to an invalid variable");
          break;
        }
        check_value(s.value, scope, "assignment");
        if (s.value < fn_.exprs.size() && fn_.vars[s.target].lanes == Lanes::Uniform &&
            fn_.exprs[s.value].lanes == Lanes::Varying)
          fail("varying value assigned to uniform variable '{}'", fn_.vars[s.target].name);
        scope.assigned[s.target] = true;
        break;
      }
      case StmtKind::Store:
        check_store(s, scope);
        break;
      case StmtKind::Prefetch:
        if (s.target >= fn_.buffers.size() || s.index >= fn_.indices.size())
          fail("prefetch of an invalid buffer or index");
        else
          check_access(s.target, s.index, scope, "prefetch");
        break;
      case StmtKind::IfPresent: {
        if (s.target >= fn_.buffers.size() || fn_.buffers[s.target].is_scratch()) {
          fail("if_present on an invalid or scratch buffer");
          break;
        }
        Scope inner = scope; // assignments inside may not happen: they do not escape
        inner.present.insert(s.target);
        check_block(s.body, inner);
        break;
      }
      }
    }
  }

  void check_store(const Stmt& s, Scope& scope) {
    if (s.target >= fn_.buffers.size() || s.index >= fn_.indices.size()) {
      fail("store to an invalid buffer or index");
      return;
    }
    const BufferDecl& b = fn_.buffers[s.target];
    if (b.readonly) fail("store to read-only buffer '{}'", b.name);
    check_value(s.value, scope, "store");
    check_access(s.target, s.index, scope, "store");
    if (s.value >= fn_.exprs.size()) return;
    const Lanes v = fn_.exprs[s.value].lanes;
    if (s.mode == StoreMode::AddLaneSum && b.lanes != Lanes::Uniform)
      fail("lane-sum store into varying buffer '{}'", b.name);
    if (s.mode != StoreMode::AddLaneSum && b.lanes == Lanes::Uniform && v == Lanes::Varying)
      fail("varying value stored into uniform buffer '{}' without a lane sum", b.name);
  }

  const Function& fn_;
  std::vector<std::string> problems_;
  std::vector<bool> loop_used_;
};

std::string join_problems(const std::vector<std::string>& problems) {
  std::string all;
  for (const auto& p : problems)
    all += "\n  " + p;
  return all;
}

} // namespace

std::vector<std::string> verify(const Function& fn) {
  return Verifier(fn).run();
}

std::vector<std::string> verify(const Module& module) {
  std::vector<std::string> problems;
  std::set<std::string> names;
  for (const Function& f : module.functions) {
    if (!names.insert(f.name).second)
      problems.push_back(fmt::format("module '{}': duplicate function '{}'", module.name, f.name));
    auto p = verify(f);
    problems.insert(problems.end(), p.begin(), p.end());
  }
  return problems;
}

void verify_or_throw(const Function& fn) {
  auto problems = verify(fn);
  if (!problems.empty())
    throw InternalError(
        fmt::format("malformed loop function '{}':{}", fn.name, join_problems(problems)));
}

void verify_or_throw(const Module& module) {
  auto problems = verify(module);
  if (!problems.empty())
    throw InternalError(
        fmt::format("malformed loop module '{}':{}", module.name, join_problems(problems)));
}

} // namespace plastic::loops
