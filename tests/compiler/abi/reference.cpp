// The interpreter side of the kernel tests (see reference.h).
#include "tests/compiler/abi/reference.h"

#include <stdexcept>
#include <type_traits>

#include "compiler/interp/interpreter.h"
#include "compiler/ir/node.h"
#include "compiler/ir/op.h"

namespace plastic::test {

namespace {

using interp::Tensor;

thread_local bool f32_reference = false;

Tensor<double> slice(const Vec* v, int64_t offset, const ir::Shape& shape,
                     const std::string& what) {
  if (!v) throw std::runtime_error("reference: no array for " + what);
  Tensor<double> t(shape);
  if (offset + t.numel() > static_cast<int64_t>(v->size()))
    throw std::runtime_error("reference: out of range " + what);
  for (int64_t i = 0; i < t.numel(); ++i)
    t.data[static_cast<size_t>(i)] = (*v)[static_cast<size_t>(offset + i)];
  return t;
}

// The interpreter in T on the f64 inputs (rounded to T), outputs widened back.
template <class T>
std::map<std::string, Vec> evaluate_as(const ir::Function& fn,
                                       const std::map<std::string, Tensor<double>>& in) {
  std::vector<Tensor<T>> outs;
  if constexpr (std::is_same_v<T, double>) {
    outs = interp::evaluate<double>(fn, in);
  } else {
    std::map<std::string, Tensor<T>> typed;
    for (const auto& [name, t] : in) {
      Tensor<T> x(t.shape);
      for (size_t i = 0; i < t.data.size(); ++i)
        x.data[i] = static_cast<T>(t.data[i]);
      typed[name] = std::move(x);
    }
    outs = interp::evaluate<T>(fn, typed);
  }
  std::map<std::string, Vec> r;
  for (size_t i = 0; i < outs.size(); ++i)
    r[fn.outputs()[i].name] = Vec(outs[i].data.begin(), outs[i].data.end());
  return r;
}

// "x@3" -> ("x", 3); -1 when no integer suffix.
std::pair<std::string, int> node_of(const std::string& name) {
  size_t at = name.rfind('@');
  if (at == std::string::npos || at + 1 == name.size()) return {name, -1};
  for (size_t i = at + 1; i < name.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return {name, -1};
  return {name.substr(0, at), std::stoi(name.substr(at + 1))};
}

// Offset in u of an Input leaf of a path sample or static.
int64_t sample_offset(const model::ModelFunctions& fns, const abi::ModelLayout& L,
                      const ir::Node* leaf, const std::string& base) {
  const dsl::InputInfo& in = fns.model->inputs.at(static_cast<size_t>(leaf->slot()));
  for (const abi::InputSlot& s : L.inputs) {
    if (s.c.source != leaf->slot()) continue;
    bool deriv =
        base.rfind("d" + in.name, 0) == 0 && base != in.name && base.rfind(in.name + "@", 0) != 0;
    if (in.kind == dsl::InputKind::Static && s.c.kind == PLASTIC_INPUT_STATIC) return s.c.offset;
    if (in.kind == dsl::InputKind::Path && !deriv && s.c.kind == PLASTIC_INPUT_PATH_VALUE)
      return s.c.offset;
    if (in.kind == dsl::InputKind::Path && deriv &&
        (s.c.kind == PLASTIC_INPUT_PATH_DERIV || s.c.kind == PLASTIC_INPUT_LOGSIG_DRIVER))
      return s.c.offset;
  }
  throw std::runtime_error("reference: no slot for " + leaf->name());
}

} // namespace

std::map<std::string, Vec> evaluate_sample(const model::ModelFunctions& fns,
                                           const abi::ModelLayout& L, const ir::Function& fn,
                                           const SampleArrays& s) {
  std::map<std::string, Tensor<double>> in;
  for (const ir::Node* leaf : fn.inputs()) {
    const std::string& n = leaf->name();
    const ir::Shape& shape = leaf->shape();
    switch (leaf->op()) {
    case ir::Op::Time:
      in[n] = Tensor<double>::scalar(s.t);
      break;
    case ir::Op::State:
      in[n] = slice(s.z, L.state(n)->offset, shape, n);
      break;
    case ir::Op::Param:
      in[n] = slice(s.theta, L.param(n)->c.offset, shape, n);
      break;
    case ir::Op::Input: {
      const dsl::InputInfo& info = fns.model->inputs.at(static_cast<size_t>(leaf->slot()));
      if (info.kind == dsl::InputKind::Label || info.kind == dsl::InputKind::Target) {
        in[n] = slice(s.target, L.target(info.name)->offset, shape, n);
        break;
      }
      auto [base, node] = node_of(n);
      int64_t block = node >= 0 ? s.block_of_node(node) : 0;
      in[n] = slice(s.u, block + sample_offset(fns, L, leaf, base), shape, n);
      break;
    }
    case ir::Op::Arg:
      if (n == "T" || n == "t")
        in[n] = Tensor<double>::scalar(s.t);
      else if (n == "step.h")
        in[n] = Tensor<double>::scalar(s.h);
      else if (n.rfind("ct.", 0) == 0) {
        std::string of = n.substr(3);
        if (auto it = s.ct_named.find(of); it != s.ct_named.end())
          in[n] = slice(it->second, 0, shape, n);
        else if (L.state(of))
          in[n] = slice(s.ct_states, L.state(of)->offset, shape, n);
        else
          in[n] = slice(s.ct_outputs, L.output(of)->offset, shape, n);
      } else if (n.rfind("a.", 0) == 0) {
        in[n] = slice(s.a_states, L.state(n.substr(2))->offset, shape, n);
      } else {
        in[n] = slice(s.y, L.output(n)->offset, shape, n);
      }
      break;
    default:
      throw std::runtime_error("reference: leaf " + n);
    }
  }
  return f32_reference ? evaluate_as<float>(fn, in) : evaluate_as<double>(fn, in);
}

F32Reference::F32Reference() : previous_(f32_reference) {
  f32_reference = true;
}
F32Reference::~F32Reference() {
  f32_reference = previous_;
}

GradPlace grad_place(const model::ModelFunctions& fns, const abi::ModelLayout& L,
                     const ir::Function& fn, const std::string& output) {
  if (output.rfind("d.", 0) != 0) return {};
  std::string of = output.substr(2);
  const ir::Node* leaf = fn.input(of);
  if (!leaf) return {};
  switch (leaf->op()) {
  case ir::Op::State:
    return {"z", L.state(of)->offset, -1};
  case ir::Op::Param:
    return {"theta", L.param(of)->c.offset, -1};
  case ir::Op::Arg:
    if (L.output(of)) return {"y", L.output(of)->offset, -1};
    return {};
  case ir::Op::Input: {
    const dsl::InputInfo& info = fns.model->inputs.at(static_cast<size_t>(leaf->slot()));
    if (info.kind != dsl::InputKind::Path && info.kind != dsl::InputKind::Static) return {};
    auto [base, node] = node_of(of);
    return {"u", sample_offset(fns, L, leaf, base), node};
  }
  default:
    return {};
  }
}

} // namespace plastic::test
