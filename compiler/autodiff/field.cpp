// The field contract, the field's VJP and the continuous adjoint system
// (see ode.h).
#include <fmt/format.h>

#include "compiler/autodiff/function_ad.h"
#include "compiler/autodiff/names.h"
#include "compiler/autodiff/ode.h"
#include "compiler/autodiff/reverse.h"
#include "compiler/ir/error.h"
#include "compiler/ir/ops.h"

namespace plastic::ad {
using ir::Function;
using ir::Node;
using ir::Op;

FieldSignature field_signature(const Function& field) {
  FieldSignature sig;
  for (const Node* in : field.inputs()) {
    switch (in->op()) {
    case Op::Time:
      if (sig.time) throw ir::IRError(fmt::format("field '{}' has two time inputs", field.name()));
      sig.time = in;
      break;
    case Op::State:
      sig.states.push_back(in);
      break;
    case Op::Param:
      sig.params.push_back(in);
      break;
    case Op::Input:
      sig.controls.push_back(in);
      break;
    default:
      sig.others.push_back(in);
      break;
    }
  }
  if (sig.states.empty())
    throw ir::IRError(fmt::format("field '{}' has no state input", field.name()));
  if (field.outputs().size() != sig.states.size())
    throw ir::IRError(fmt::format("field '{}' has {} states but {} outputs; a field returns one "
                                  "derivative per state",
                                  field.name(), sig.states.size(), field.outputs().size()));
  for (size_t i = 0; i < sig.states.size(); ++i) {
    const Node *z = sig.states[i], *dz = field.outputs()[i].node;
    if (z->shape() != dz->shape() || z->dtype() != dz->dtype())
      throw ir::IRError(fmt::format("field '{}': output '{}' is {} but state '{}' is {}",
                                    field.name(), field.outputs()[i].name,
                                    ir::type_str(dz->dtype(), dz->shape()), z->name(),
                                    ir::type_str(z->dtype(), z->shape())),
                        dz->loc());
  }
  return sig;
}

Function field_vjp(const Function& field) {
  FieldSignature sig = field_signature(field);
  VjpSpec spec;
  for (const auto* group : {&sig.states, &sig.params, &sig.controls})
    for (const Node* n : *group)
      spec.wrt.push_back(n->name());
  spec.name = field.name() + ".vjp";
  return vjp_function(field, spec);
}

Function adjoint_system(const Function& field) {
  FieldSignature sig = field_signature(field);
  ir::Context& ctx = field.context();
  std::vector<const Node*> inputs;
  if (!sig.time) inputs.push_back(ctx.time("t"));
  inputs.insert(inputs.end(), field.inputs().begin(), field.inputs().end());
  std::vector<const Node*> adjoints;
  for (size_t i = 0; i < sig.states.size(); ++i) {
    const Node* z = sig.states[i];
    adjoints.push_back(ctx.leaf(Op::Arg, derived_name(Derived::Adjoint, z->name()), z->shape(),
                                static_cast<int64_t>(i), z->dtype()));
    inputs.push_back(adjoints.back());
  }
  std::vector<const Node*> wrt = sig.states;
  wrt.insert(wrt.end(), sig.params.begin(), sig.params.end());
  std::vector<const Node*> grads = vjp_dense(field.output_nodes(), adjoints, wrt);
  std::vector<ir::Output> outs = field.outputs();
  for (size_t i = 0; i < wrt.size(); ++i)
    outs.push_back({derived_name(Derived::AdjointRate, wrt[i]->name()), ir::neg(grads[i])});
  return Function(field.name() + ".adjoint", std::move(inputs), std::move(outs));
}

} // namespace plastic::ad
