// The IR printer (see printer.h for the format).
#include "compiler/ir/printer.h"

#include <unordered_map>

#include <fmt/format.h>

#include "compiler/ir/traversal.h"

namespace plastic::ir {
namespace {

bool is_plain_name(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return false;
  return true;
}

std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

} // namespace

std::string print(const Function& f, const PrintOptions& options) {
  std::unordered_map<const Node*, size_t> number;
  std::vector<const Node*> order;
  for (const Node* in : f.inputs()) {
    number.emplace(in, order.size());
    order.push_back(in);
  }
  for (const Node* n : topo_order(f.output_nodes()))
    if (number.emplace(n, order.size()).second) order.push_back(n);

  std::string out =
      fmt::format("func @{} {{\n", is_plain_name(f.name()) ? f.name() : quoted(f.name()));
  for (const Node* n : order) {
    out += fmt::format("  %{} = {}", number.at(n), op_name(n->op()));
    uint8_t layout = op_attr_layout(n->op());
    const Attrs& a = n->attrs();
    if (layout & kAttrStr) out += fmt::format(" {}", quoted(a.str));
    if (layout & kAttrInts) out += fmt::format(" [{}]", fmt::join(a.ints, ", "));
    if (layout & kAttrReals) out += fmt::format(" ({})", fmt::join(a.reals, ", "));
    for (size_t i = 0; i < n->num_operands(); ++i)
      out += fmt::format("{}%{}", i ? ", " : " ", number.at(n->operand(i)));
    out += fmt::format(" : {}", type_str(n->dtype(), n->shape()));
    if (options.locations && n->loc().valid())
      out += fmt::format(" loc({}:{}:{})", quoted(n->loc().file), n->loc().line, n->loc().col);
    out += '\n';
  }
  out += "  return";
  for (size_t i = 0; i < f.outputs().size(); ++i)
    out += fmt::format("{}{} = %{}", i ? ", " : " ", quoted(f.outputs()[i].name),
                       number.at(f.outputs()[i].node));
  out += "\n}\n";
  return out;
}

std::ostream& operator<<(std::ostream& os, const Function& f) {
  return os << print(f);
}

} // namespace plastic::ir
