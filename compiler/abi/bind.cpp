// Leaf bindings of kernel IR functions (see bind.h).
#include "compiler/abi/bind.h"

#include <fmt/format.h>

#include "compiler/autodiff/names.h"
#include "compiler/ir/node.h"
#include "compiler/ir/op.h"
#include "compiler/loops/error.h"

namespace plastic::abi {

using loopgen::InputBinding;
using loopgen::OutputBinding;

namespace {

[[noreturn]] void unbound(const ir::Function& fn, const std::string& what) {
  throw plastic::InternalError(fmt::format(
      "model assembler: {} of function {} has no place in its kernel", what, fn.name()));
}

InputBinding at(const Place& p, int64_t offset) {
  InputBinding in = InputBinding::in(p.buffer, p.base + offset);
  in.cold = p.cold;
  return in;
}

// The state whose adjoint "a.<state>" the leaf `name` is, if any.
const Slice* adjoint_state(const ModelLayout& L, const std::string& name) {
  std::optional<std::string_view> of = ad::derived_from(ad::Derived::Adjoint, name);
  return of ? L.state(*of) : nullptr;
}

// The u offset of an Input leaf of a path or static input (node suffix removed).
std::optional<int64_t> sample_offset(const KernelEnv& env, const ir::Node* leaf,
                                     const std::string& name) {
  const dsl::InputInfo& in = env.model->inputs.at(static_cast<size_t>(leaf->slot()));
  if (in.kind == dsl::InputKind::Static) {
    const InputSlot* s = env.layout->static_slot(static_cast<int>(leaf->slot()));
    return s ? std::optional<int64_t>(s->c.offset) : std::nullopt;
  }
  if (in.kind != dsl::InputKind::Path) return std::nullopt;
  std::optional<bool> deriv = path_leaf_is_deriv(name, in.name);
  if (!deriv) return std::nullopt;
  const InputSlot* s = env.layout->path_slot(static_cast<int>(leaf->slot()), *deriv);
  return s ? std::optional<int64_t>(s->c.offset) : std::nullopt;
}

} // namespace

std::optional<std::pair<std::string, int>> split_node_suffix(const std::string& name) {
  size_t at = name.rfind('@');
  if (at == std::string::npos || at + 1 >= name.size()) return std::nullopt;
  int k = 0;
  for (size_t i = at + 1; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return std::nullopt;
    k = k * 10 + (name[i] - '0');
  }
  return std::pair<std::string, int>(name.substr(0, at), k);
}

std::vector<InputBinding> bind_inputs(const ir::Function& fn, const KernelEnv& env) {
  const ModelLayout& L = *env.layout;
  std::vector<InputBinding> out;
  for (const ir::Node* leaf : fn.inputs()) {
    const std::string& name = leaf->name();
    switch (leaf->op()) {
    case ir::Op::Time:
      if (!env.t) unbound(fn, "time " + name);
      out.push_back(InputBinding::value(*env.t));
      continue;
    case ir::Op::State: {
      const Slice* s = L.state(name);
      if (!s || !env.z.valid()) unbound(fn, "state " + name);
      out.push_back(at(env.z, s->offset));
      continue;
    }
    case ir::Op::Param: {
      const ParamEntry* p = L.param(name);
      if (!p || !env.theta.valid()) unbound(fn, "param " + name);
      out.push_back(at(env.theta, p->c.offset));
      continue;
    }
    case ir::Op::Input: {
      const dsl::InputInfo& in = env.model->inputs.at(static_cast<size_t>(leaf->slot()));
      if (in.kind == dsl::InputKind::Label || in.kind == dsl::InputKind::Target) {
        const Slice* s = L.target(in.name);
        if (!s || !env.target.valid()) unbound(fn, "target " + name);
        out.push_back(at(env.target, s->offset));
        continue;
      }
      if (auto node = split_node_suffix(name); node && env.u_node) {
        std::optional<int64_t> off = sample_offset(env, leaf, node->first);
        Place p = env.u_node(node->second);
        if (!off || !p.valid()) unbound(fn, "control " + name);
        out.push_back(at(p, *off));
        continue;
      }
      std::optional<int64_t> off = sample_offset(env, leaf, name);
      if (!off || !env.u.valid()) unbound(fn, "input " + name);
      out.push_back(at(env.u, *off));
      continue;
    }
    case ir::Op::Arg: {
      if (name == "T" || name == "t") {
        if (!env.t) unbound(fn, "time " + name);
        out.push_back(InputBinding::value(*env.t));
      } else if (name == ad::kStepSizeName) {
        if (!env.h) unbound(fn, "step size");
        out.push_back(InputBinding::value(*env.h));
      } else if (auto ct = ad::derived_from(ad::Derived::Cotangent, name)) {
        std::string of(*ct);
        if (auto it = env.ct_named.find(of); it != env.ct_named.end()) {
          out.push_back(at(it->second, 0));
        } else if (const Slice* s = L.state(of); s && env.ct_states.valid()) {
          out.push_back(at(env.ct_states, s->offset));
        } else {
          unbound(fn, "cotangent " + name);
        }
      } else if (const Slice* a = adjoint_state(L, name); a && env.a_states.valid()) {
        out.push_back(at(env.a_states, a->offset));
      } else if (auto k = ad::derived_from(ad::Derived::FirstStage, name)) {
        const Slice* st = L.state(*k);
        if (!st || !env.k_first.valid()) unbound(fn, "first stage " + name);
        out.push_back(at(env.k_first, st->offset));
      } else if (const Slice* o = L.output(name); o && env.y.valid()) {
        out.push_back(at(env.y, o->offset));
      } else {
        unbound(fn, "argument " + name);
      }
      continue;
    }
    default:
      unbound(fn, "leaf " + name);
    }
  }
  return out;
}

std::vector<OutputBinding> bind_outputs(const ir::Function& fn, const KernelEnv& env,
                                        const GradEnv& grad,
                                        const std::map<std::string, Place>& plain,
                                        double theta_scale) {
  using loops::StoreMode;
  const ModelLayout& L = *env.layout;
  std::vector<OutputBinding> out;
  for (const ir::Output& o : fn.outputs()) {
    if (auto it = plain.find(o.name); it != plain.end()) {
      out.push_back(OutputBinding::to(it->second.buffer, it->second.base, StoreMode::Set));
      continue;
    }
    OutputBinding b = OutputBinding::discard();
    if (auto d = ad::derived_from(ad::Derived::Gradient, o.name)) {
      std::string of(*d);
      const ir::Node* leaf = fn.input(of);
      if (const Slice* s = L.state(of); s && grad.z_bar.valid()) {
        b = OutputBinding::to(grad.z_bar.buffer, grad.z_bar.base + s->offset, StoreMode::Add);
      } else if (const ParamEntry* p = L.param(of); p && grad.theta_bar.valid()) {
        b = OutputBinding::to(grad.theta_bar.buffer, grad.theta_bar.base + p->c.offset,
                              StoreMode::AddLaneSum, theta_scale);
      } else if (const Slice* y = L.output(of);
                 y && grad.y_bar.valid() && leaf && leaf->op() == ir::Op::Arg) {
        b = OutputBinding::to(grad.y_bar.buffer, grad.y_bar.base + y->offset, StoreMode::Add);
      } else if (leaf && leaf->op() == ir::Op::Input) {
        const dsl::InputInfo& in = env.model->inputs.at(static_cast<size_t>(leaf->slot()));
        bool sample = in.kind == dsl::InputKind::Path || in.kind == dsl::InputKind::Static;
        if (auto node = split_node_suffix(of); sample && node && grad.u_node_bar) {
          Place p = grad.u_node_bar(node->second);
          if (std::optional<int64_t> off = sample_offset(env, leaf, node->first); off && p.valid())
            b = OutputBinding::to(p.buffer, p.base + *off, StoreMode::Add);
        } else if (sample && grad.u_bar.valid()) {
          if (std::optional<int64_t> off = sample_offset(env, leaf, of))
            b = OutputBinding::to(grad.u_bar.buffer, grad.u_bar.base + *off, StoreMode::Add);
        }
      }
    }
    out.push_back(b);
  }
  return out;
}

} // namespace plastic::abi
