// Derivatives of whole IR Functions (see function_ad.h).
#include "compiler/autodiff/function_ad.h"

#include <algorithm>

#include <fmt/format.h>

#include "compiler/autodiff/forward.h"
#include "compiler/autodiff/names.h"
#include "compiler/autodiff/reverse.h"
#include "compiler/ir/error.h"

namespace plastic::ad {
using ir::Function;
using ir::Node;
using ir::Output;

namespace {

std::vector<const Node*> pick_inputs(const Function& f, const std::vector<std::string>& names) {
  if (names.empty()) return f.inputs();
  std::vector<const Node*> out;
  for (const std::string& n : names) {
    const Node* in = f.input(n);
    if (!in) throw ir::IRError(fmt::format("'{}' is not an input of function '{}'", n, f.name()));
    out.push_back(in);
  }
  return out;
}

} // namespace

Function vjp_function(const Function& f, const VjpSpec& spec) {
  ir::Context& ctx = f.context();
  std::vector<const Node*> wrt = pick_inputs(f, spec.wrt);
  std::vector<const Node*> inputs = f.inputs();
  std::vector<const Node*> outs = f.output_nodes(), cts(outs.size(), nullptr);
  for (size_t i = 0; i < outs.size(); ++i) {
    const std::string& name = f.outputs()[i].name;
    bool seeded = spec.seeds.empty() ||
                  std::find(spec.seeds.begin(), spec.seeds.end(), name) != spec.seeds.end();
    if (!seeded) continue;
    cts[i] = ctx.leaf(ir::Op::Arg, derived_name(Derived::Cotangent, name), outs[i]->shape(),
                      static_cast<int64_t>(i), outs[i]->dtype());
    inputs.push_back(cts[i]);
  }
  for (const std::string& s : spec.seeds)
    if (!f.output(s))
      throw ir::IRError(fmt::format("'{}' is not an output of function '{}'", s, f.name()));
  std::vector<const Node*> grads = vjp_dense(outs, cts, wrt);
  std::vector<Output> results;
  if (spec.keep_outputs) results = f.outputs();
  for (size_t i = 0; i < wrt.size(); ++i)
    results.push_back({derived_name(Derived::Gradient, wrt[i]->name()), grads[i]});
  return Function(spec.name.empty() ? f.name() + ".vjp" : spec.name, std::move(inputs),
                  std::move(results));
}

Function jvp_function(const Function& f, const JvpSpec& spec) {
  ir::Context& ctx = f.context();
  std::vector<const Node*> wrt = pick_inputs(f, spec.wrt);
  std::vector<const Node*> inputs = f.inputs(), tans;
  for (size_t i = 0; i < wrt.size(); ++i) {
    tans.push_back(ctx.leaf(ir::Op::Arg, "tan." + wrt[i]->name(), wrt[i]->shape(),
                            static_cast<int64_t>(i), wrt[i]->dtype()));
    inputs.push_back(tans.back());
  }
  std::vector<const Node*> outs = f.output_nodes();
  std::vector<const Node*> t = jvp_dense(outs, wrt, tans);
  std::vector<Output> results;
  if (spec.keep_outputs) results = f.outputs();
  for (size_t i = 0; i < outs.size(); ++i)
    results.push_back({"tan." + f.outputs()[i].name, t[i]});
  return Function(spec.name.empty() ? f.name() + ".jvp" : spec.name, std::move(inputs),
                  std::move(results));
}

} // namespace plastic::ad
