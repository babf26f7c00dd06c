// The canonical source printer (see ast_printer.h).
#include "dsl/ast_printer.h"

#include <fmt/format.h>

#include <charconv>

namespace plastic::dsl {
namespace {

int precedence(const Expr& e) {
  if (e.kind == ExprKind::Binary) {
    switch (e.binary_op) {
    case BinaryOp::Add:
    case BinaryOp::Sub:
      return 1;
    case BinaryOp::Mul:
    case BinaryOp::Div:
      return 2;
    case BinaryOp::MatMul:
      return 3;
    case BinaryOp::Pow:
      return 5;
    }
  }
  if (e.kind == ExprKind::Unary) return 4;
  return 6;
}

// Built by appending: GCC 12 warns falsely (-Wrestrict) on "(" + s + ")".
std::string paren(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '(';
  out += s;
  out += ')';
  return out;
}

std::string number(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v); // shortest round-trip form
  std::string s(buf, end);
  return s;
}

std::string print_args(const std::vector<Arg>& args) {
  std::string out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i) out += ", ";
    if (!args[i].name.name.empty()) out += args[i].name.name + " = ";
    out += print_expr(*args[i].value);
  }
  return out;
}

std::string print_list(const std::vector<ExprPtr>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i)
    out += (i ? ", " : "") + print_expr(*items[i]);
  return out;
}

std::string print_block(const Expr& e, const std::string& indent) {
  if (e.kind != ExprKind::Block) return print_expr(e);
  std::string out;
  for (size_t i = 0; i < e.lets.size(); ++i)
    out += "\n" + indent + "let " + e.lets[i].name + " = " + print_expr(*e.children[i]);
  out += "\n" + indent + print_expr(*e.children.back());
  return out;
}

std::string print_invocation(const Invocation& inv, const char* open, const char* close) {
  if (inv.args.empty() && std::string(open) == "(") return inv.name.name;
  return inv.name.name + open + print_args(inv.args) + close;
}

std::string print_param(const ParamDecl& p) {
  std::string out = "param " + p.name.name + " : ";
  if (p.layer) return out + print_invocation(*p.layer, "[", "]");
  out += "[" + print_list(p.shape) + "]";
  if (p.init) out += " init " + print_invocation(*p.init, "(", ")");
  return out;
}

std::string print_fn(const FnDecl& f, const std::string& indent) {
  std::string out = f.is_apply ? "apply(" : "fn " + f.name.name + "(";
  for (size_t i = 0; i < f.params.size(); ++i)
    out += (i ? ", " : "") + f.params[i].name;
  out += ") =";
  return out + (f.body->kind == ExprKind::Block ? print_block(*f.body, indent + "  ")
                                                : " " + print_expr(*f.body));
}

std::string print_rhs(const Expr& body) {
  return body.kind == ExprKind::Block ? print_block(body, "  ") : " " + print_expr(body);
}

std::string print_options(const std::vector<Option>& options) {
  std::string out;
  for (const Option& o : options)
    out += " " + o.name.name + " " + print_expr(*o.value) +
           (o.unit.name.empty() ? "" : " " + o.unit.name);
  return out;
}

std::string print_tune(const TuneDecl& t) {
  const std::string values = print_list(t.values);
  switch (t.scale) {
  case TuneScale::Log:
    return "tune log(" + values + ")";
  case TuneScale::Linear:
    return "tune (" + values + ")";
  case TuneScale::Choice:
    break;
  }
  return "tune [" + values + "]";
}

struct DeclPrinter {
  std::string operator()(const DimDecl& d) const {
    if (d.from_data)
      return fmt::format("dim {} from data.{}{}", d.name.name, d.from_data->name,
                         d.value ? " else " + print_expr(*d.value) : "");
    return fmt::format("{} {} = {}{}", d.is_const ? "const" : "dim", d.name.name,
                       print_expr(*d.value), d.tune ? " " + print_tune(*d.tune) : "");
  }
  std::string operator()(const InputDecl& in) const {
    std::string out =
        fmt::format("input {} : {}[{}]", in.name.name, to_string(in.kind), print_list(in.sizes));
    if (in.kind == InputKind::Path) {
      if (in.interp == Interpolation::LogSig)
        out += fmt::format(" logsig(depth {}, step {})", print_expr(*in.logsig_depth),
                           print_expr(*in.logsig_step));
      else
        out += " " + std::string(to_string(in.interp));
      if (in.with_time || in.unit_increments)
        out += fmt::format(" with {}", in.with_time && in.unit_increments ? "time, unit_increments"
                                       : in.with_time                     ? "time"
                                                                          : "unit_increments");
    }
    if (in.per_observation) out += " per observation";
    return out;
  }
  std::string operator()(const ParamDecl& p) const { return print_param(p); }
  std::string operator()(const StateDecl& s) const {
    return fmt::format("state {} : [{}] ={}", s.name.name, print_list(s.shape), print_rhs(*s.init));
  }
  std::string operator()(const FnDecl& f) const { return print_fn(f, ""); }
  std::string operator()(const LayerDecl& l) const {
    std::string out = "layer " + l.name.name + "[";
    for (size_t i = 0; i < l.args.size(); ++i)
      out += (i ? ", " : "") + l.args[i].name;
    out += "]";
    for (const ParamDecl& p : l.params)
      out += "\n  " + print_param(p);
    for (const FnDecl& f : l.fns)
      out += "\n  " + print_fn(f, "  ");
    return out + "\nend";
  }
  std::string operator()(const FlowDecl& f) const {
    return "flow " + f.state.name + "' =" + print_rhs(*f.body);
  }
  std::string operator()(const JumpDecl& j) const {
    return "jump " + j.state.name + " =" + print_rhs(*j.body);
  }
  std::string operator()(const OutputDecl& o) const {
    std::string out = "output " + o.name.name + " =" + print_rhs(*o.body);
    if (o.per_observation) out += " per observation";
    return out;
  }
  std::string operator()(const LossDecl& l) const { return "loss" + print_rhs(*l.body); }
  std::string operator()(const SolveDecl& s) const {
    return "solve " + s.method.name + print_options(s.options);
  }
  std::string operator()(const GradientDecl& g) const {
    std::string out = "gradient " + g.method.name;
    if (g.count) out += " " + print_expr(*g.count);
    return out + print_options(g.options);
  }
};

} // namespace

std::string print_expr(const Expr& e) {
  switch (e.kind) {
  case ExprKind::Number:
    return number(e.number);
  case ExprKind::String:
    return "\"" + e.text + "\"";
  case ExprKind::Name:
    return e.text;
  case ExprKind::Unary: {
    const Expr& a = e.child(0);
    std::string inner = print_expr(a);
    // Parenthesise when needed, and keep `-(1)` from printing as the literal `-1`.
    if (precedence(a) < precedence(e) || a.kind == ExprKind::Number || a.kind == ExprKind::Unary)
      inner = paren(inner);
    return std::string(to_string(e.unary_op)) + inner;
  }
  case ExprKind::Binary: {
    int p = precedence(e);
    const Expr& a = e.child(0);
    const Expr& b = e.child(1);
    bool right_assoc = e.binary_op == BinaryOp::Pow;
    std::string l = print_expr(a), r = print_expr(b);
    bool paren_l = right_assoc ? precedence(a) <= p : precedence(a) < p;
    bool paren_r =
        right_assoc ? precedence(b) < p && b.kind != ExprKind::Unary : precedence(b) <= p;
    if (a.kind == ExprKind::Number && a.number < 0 && p >= 4) paren_l = true;
    if (paren_l) l = paren(l);
    if (paren_r) r = paren(r);
    return l + " " + std::string(to_string(e.binary_op)) + " " + r;
  }
  case ExprKind::Call: {
    std::string callee = print_expr(e.child(0));
    if (precedence(e.child(0)) < 6 ||
        (e.child(0).kind == ExprKind::Number && e.child(0).number < 0))
      callee = paren(callee);
    return callee + "(" + print_args(e.args) + ")";
  }
  case ExprKind::Index: {
    std::string base = print_expr(e.child(0));
    if (precedence(e.child(0)) < 6 ||
        (e.child(0).kind == ExprKind::Number && e.child(0).number < 0))
      base = paren(base);
    std::string out = base + "[";
    for (size_t i = 1; i < e.children.size(); ++i)
      out += (i > 1 ? ", " : "") + print_expr(e.child(i));
    return out + "]";
  }
  case ExprKind::Slice: {
    std::string out;
    if (e.children[0]) out += print_expr(e.child(0));
    out += ":";
    if (e.children[1]) out += print_expr(e.child(1));
    return out;
  }
  case ExprKind::Ellipsis:
    return "...";
  case ExprKind::List:
    return "[" + print_list(e.children) + "]";
  case ExprKind::Block: {
    // A block inside an expression only arises from the parser at top level;
    // print it in its multi-line form.
    return print_block(e, "  ");
  }
  }
  return "?";
}

std::string print_module(const Module& m) {
  std::string out;
  if (!m.model.name.empty()) out += "model " + m.model.name + "\n";
  for (const Decl& d : m.decls)
    out += "\n" + std::visit(DeclPrinter{}, d);
  return out + "\n";
}

} // namespace plastic::dsl
