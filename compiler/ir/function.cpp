// IR Functions (see function.h).
#include "compiler/ir/function.h"

#include <unordered_set>

#include <fmt/format.h>

#include "compiler/ir/error.h"
#include "compiler/ir/traversal.h"

namespace plastic::ir {

Function::Function(std::string name, std::vector<const Node*> inputs, std::vector<Output> outputs)
    : name_(std::move(name)), inputs_(std::move(inputs)), outputs_(std::move(outputs)) {
  if (outputs_.empty()) throw IRError(fmt::format("function '{}' has no outputs", name_));
  ctx_ = &outputs_[0].node->context();
  std::unordered_set<std::string_view> names;
  std::unordered_set<const Node*> inputs_set;
  for (const Node* in : inputs_) {
    if (!in || !in->is_leaf())
      throw IRError(fmt::format("function '{}': input is not a leaf", name_));
    if (&in->context() != ctx_)
      throw IRError(
          fmt::format("function '{}': input '{}' is from another Context", name_, in->name()));
    if (!names.insert(in->name()).second || !inputs_set.insert(in).second)
      throw IRError(fmt::format("function '{}': two inputs are called '{}'", name_, in->name()));
  }
  names.clear();
  for (const Output& o : outputs_) {
    if (!o.node) throw IRError(fmt::format("function '{}': output '{}' is null", name_, o.name));
    if (&o.node->context() != ctx_)
      throw IRError(
          fmt::format("function '{}': output '{}' is from another Context", name_, o.name));
    if (!names.insert(o.name).second)
      throw IRError(fmt::format("function '{}': two outputs are called '{}'", name_, o.name));
  }
  for (const Node* n : topo_order(output_nodes()))
    if (n->is_leaf() && !inputs_set.count(n))
      throw IRError(fmt::format("function '{}': the outputs depend on {} '{}' {}, which is not "
                                "an input",
                                name_, op_name(n->op()), n->name(),
                                type_str(n->dtype(), n->shape())),
                    n->loc());
}

const Node* Function::input(std::string_view name) const {
  for (const Node* in : inputs_)
    if (in->name() == name) return in;
  return nullptr;
}

const Node* Function::output(std::string_view name) const {
  for (const Output& o : outputs_)
    if (o.name == name) return o.node;
  return nullptr;
}

size_t Function::input_index(std::string_view name) const {
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (inputs_[i]->name() == name) return i;
  throw IRError(fmt::format("function '{}' has no input '{}'", name_, name));
}

std::vector<const Node*> Function::output_nodes() const {
  std::vector<const Node*> v;
  v.reserve(outputs_.size());
  for (const Output& o : outputs_)
    v.push_back(o.node);
  return v;
}

std::vector<const Node*> Function::inputs_of_kind(Op kind) const {
  std::vector<const Node*> v;
  for (const Node* in : inputs_)
    if (in->op() == kind) v.push_back(in);
  return v;
}

Function Function::with_output_nodes(const std::vector<const Node*>& nodes) const {
  PLASTIC_CHECK(nodes.size() == outputs_.size(), "with_output_nodes: {} nodes for {} outputs",
                nodes.size(), outputs_.size());
  std::vector<Output> outs = outputs_;
  for (size_t i = 0; i < outs.size(); ++i)
    outs[i].node = nodes[i];
  return Function(name_, inputs_, std::move(outs));
}

} // namespace plastic::ir
