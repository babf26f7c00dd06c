// Text printer of the loop IR (loop_printer.h).
#include "compiler/loops/loop_printer.h"

#include <map>

#include <fmt/format.h>

namespace plastic::loops {

namespace {

class Printer {
public:
  explicit Printer(const Function& fn) : fn_(fn) {}

  std::string run() {
    out_ += fmt::format("func @{} {} x{} (", fn_.name, elem_type_name(fn_.type), fn_.lanes);
    for (size_t i = 0; i < fn_.params.size(); ++i) {
      if (i) out_ += ", ";
      out_ += param_str(fn_.params[i]);
    }
    out_ += ")";
    if (fn_.scratch_bytes) out_ += fmt::format(" scratch {} bytes", fn_.scratch_bytes);
    out_ += " {\n";
    for (const BufferDecl& b : fn_.buffers)
      if (b.is_scratch())
        out_ += fmt::format("  buffer {}: {}[{}] at scratch+{}\n", b.name, lanes_name(b.lanes),
                            b.size, b.scratch_offset);
    for (const VarDecl& v : fn_.vars)
      out_ += fmt::format("  var {}: {}\n", v.name, lanes_name(v.lanes));
    block(fn_.body, 1);
    out_ += "}\n";
    return std::move(out_);
  }

private:
  std::string param_str(const Param& p) const {
    switch (p.kind) {
    case ParamKind::Scalar:
      return p.name + ": scalar";
    case ParamKind::Scratch:
      return p.name + ": scratch";
    case ParamKind::Opaque:
      return p.name + ": opaque";
    case ParamKind::Buffer:
      break;
    }
    const BufferDecl& b = fn_.buffers[p.buffer];
    std::string s = fmt::format("{}: {}[{}]", p.name, lanes_name(b.lanes), b.size);
    if (b.readonly) s += " readonly";
    if (b.nullable) s += " nullable";
    if (!b.noalias) s += " may_alias";
    return s;
  }

  void block(const std::vector<Stmt>& body, int depth) {
    const std::string pad(2 * depth, ' ');
    for (const Stmt& s : body) {
      switch (s.kind) {
      case StmtKind::Comment:
        out_ += pad + "# " + s.text + "\n";
        break;
      case StmtKind::Loop: {
        const LoopDecl& l = fn_.loops[s.target];
        out_ += fmt::format("{}for {} in {}..{} {{\n", pad, l.name, l.begin, l.end);
        block(s.body, depth + 1);
        out_ += pad + "}\n";
        break;
      }
      case StmtKind::IfPresent:
        out_ += fmt::format("{}if present({}) {{\n", pad, fn_.buffers[s.target].name);
        block(s.body, depth + 1);
        out_ += pad + "}\n";
        break;
      case StmtKind::Assign: {
        std::string value = statement_value(s.value, pad);
        out_ += fmt::format("{}{} = {}\n", pad, fn_.vars[s.target].name, value);
        break;
      }
      case StmtKind::Prefetch:
        out_ += fmt::format("{}prefetch {}[{}]\n", pad, fn_.buffers[s.target].name,
                            print_index(fn_, fn_.indices[s.index]));
        break;
      case StmtKind::Store: {
        std::string value = statement_value(s.value, pad);
        const std::string target = fmt::format("{}[{}]", fn_.buffers[s.target].name,
                                               print_index(fn_, fn_.indices[s.index]));
        switch (s.mode) {
        case StoreMode::Set:
          out_ += fmt::format("{}{} = {}\n", pad, target, value);
          break;
        case StoreMode::Add:
          out_ += fmt::format("{}{} += {}\n", pad, target, value);
          break;
        case StoreMode::AddLaneSum:
          out_ += fmt::format("{}{} += lanesum({})\n", pad, target, value);
          break;
        }
        break;
      }
      }
    }
  }

  // Prints the `let` lines for shared compound nodes, returns the root text.
  std::string statement_value(uint32_t root, const std::string& pad) {
    uses_.clear();
    names_.clear();
    pad_ = pad;
    count_uses(root);
    std::string text = expr(root, true);
    out_ += lets_;
    lets_.clear();
    return text;
  }

  void count_uses(uint32_t id) {
    if (uses_[id]++ > 0) return; // children counted on the first visit only
    const ExprNode& n = fn_.exprs[id];
    for (int k = 0; k < n.arity(); ++k)
      count_uses(n.args[k]);
  }

  std::string expr(uint32_t id, bool top = false) {
    const ExprNode& n = fn_.exprs[id];
    if (n.arity() > 0 && uses_[id] > 1 && !top) {
      auto it = names_.find(id);
      if (it != names_.end()) return it->second;
      std::string body = expr_body(n);
      std::string name = fmt::format("%{}", id);
      lets_ += fmt::format("{}let {} = {}\n", pad_, name, strip_parens(body));
      names_[id] = name;
      return name;
    }
    std::string s = expr_body(n);
    return top ? strip_parens(s) : s;
  }

  static std::string strip_parens(const std::string& s) {
    if (s.size() >= 2 && s.front() == '(' && s.back() == ')') {
      int depth = 0; // only if the outer pair encloses the whole string
      for (size_t i = 0; i + 1 < s.size(); ++i) {
        depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
        if (depth == 0) return s;
      }
      return s.substr(1, s.size() - 2);
    }
    return s;
  }

  std::string expr_body(const ExprNode& n) {
    switch (n.kind) {
    case ExprKind::Const:
      return fmt::format("{}", n.value);
    case ExprKind::ScalarParam:
      return fn_.params[n.ref].name;
    case ExprKind::VarRef:
      return fn_.vars[n.ref].name;
    case ExprKind::Load:
      return fmt::format("{}[{}]", fn_.buffers[n.ref].name, print_index(fn_, fn_.indices[n.index]));
    case ExprKind::Unary: {
      const UnaryOp op = n.unary_op();
      if (op == UnaryOp::Neg) return "-" + expr(n.args[0]);
      if (has_attribute(op))
        return fmt::format("{}({}, {})", op_name(op), strip_parens(expr(n.args[0])), n.value);
      return fmt::format("{}({})", op_name(op), strip_parens(expr(n.args[0])));
    }
    case ExprKind::Binary: {
      static constexpr const char* kInfix[] = {" + ", " - ", " * ", " / "};
      const auto op = n.binary_op();
      std::string a = expr(n.args[0]), b = expr(n.args[1]);
      if (op == BinaryOp::Min || op == BinaryOp::Max)
        return fmt::format("{}({}, {})", op_name(op), strip_parens(a), strip_parens(b));
      return "(" + a + kInfix[static_cast<int>(op)] + b + ")";
    }
    case ExprKind::Compare: {
      static constexpr const char* kInfix[] = {" < ", " <= ", " > ", " >= ", " == ", " != "};
      return "(" + expr(n.args[0]) + kInfix[n.op] + expr(n.args[1]) + ")";
    }
    case ExprKind::Fma:
      return fmt::format("fma({}, {}, {})", strip_parens(expr(n.args[0])),
                         strip_parens(expr(n.args[1])), strip_parens(expr(n.args[2])));
    case ExprKind::Select:
      return fmt::format("select({}, {}, {})", strip_parens(expr(n.args[0])),
                         strip_parens(expr(n.args[1])), strip_parens(expr(n.args[2])));
    }
    return "?";
  }

  const Function& fn_;
  std::string out_, lets_, pad_;
  std::map<uint32_t, int> uses_;
  std::map<uint32_t, std::string> names_;
};

} // namespace

std::string print_index(const Function& fn, const Index& index) {
  std::string s;
  for (const auto& t : index.terms) {
    const std::string& name = fn.loops.at(t.loop).name;
    if (!s.empty())
      s += t.stride < 0 ? " - " : " + ";
    else if (t.stride < 0)
      s += "-";
    const int64_t mag = t.stride < 0 ? -t.stride : t.stride;
    s += mag == 1 ? name : fmt::format("{}*{}", mag, name);
  }
  if (s.empty()) return fmt::format("{}", index.offset);
  if (index.offset > 0) s += fmt::format(" + {}", index.offset);
  if (index.offset < 0) s += fmt::format(" - {}", -index.offset);
  return s;
}

std::string print(const Function& fn) {
  return Printer(fn).run();
}

std::string print(const Module& module) {
  std::string s = fmt::format("module {}\n", module.name);
  for (const Function& f : module.functions)
    s += "\n" + print(f);
  return s;
}

} // namespace plastic::loops
