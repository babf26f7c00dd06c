// A checked model to IR functions (see model_to_ir.h).
#include "compiler/irgen/model_to_ir.h"

#include "compiler/irgen/expr_to_ir.h"

#include <fmt/format.h>

#include <map>

namespace plastic::irgen {

namespace {

ir::Shape to_ir(const dsl::Shape& s) {
  return ir::Shape(s.begin(), s.end());
}

/// Builds the leaves of one function and remembers the ones that are not
/// states or parameters (path samples, statics, targets, times), in the order
/// of first use, so they become the function's extra inputs.
class LeafCollector {
public:
  LeafCollector(const dsl::CheckedModel& m, ir::Context& ctx) : m_(m), ctx_(ctx) {}

  const ir::Node* operator()(const dsl::Leaf& leaf) {
    using dsl::Leaf;
    using dsl::When;
    switch (leaf.kind) {
    case Leaf::Param:
      return param(leaf.index);
    case Leaf::State:
      return state(leaf.index);
    case Leaf::PathValue:
    case Leaf::PathDerivative: {
      const dsl::InputInfo& in = m_.inputs[leaf.index];
      bool d = leaf.kind == Leaf::PathDerivative;
      std::string name = (d ? "d" : "") + in.name + suffix(leaf.when);
      ir::Shape shape = d ? ir::Shape{in.drive_size} : to_ir(in.shape);
      return extra(ctx_.input(name, shape, leaf.index));
    }
    case Leaf::Static:
    case Leaf::Target: {
      const dsl::InputInfo& in = m_.inputs[leaf.index];
      return extra(ctx_.input(in.name, to_ir(in.shape), leaf.index));
    }
    case Leaf::Label: {
      const dsl::InputInfo& in = m_.inputs[leaf.index];
      return extra(ctx_.input(in.name, {in.classes}, leaf.index)); // one-hot
    }
    case Leaf::Output: {
      const dsl::OutputInfo& o = m_.outputs[leaf.index];
      return extra(ctx_.arg(o.name, to_ir(o.shape), leaf.index));
    }
    case Leaf::Time:
      if (leaf.when == When::Now) return extra(ctx_.time("t"));
      return extra(ctx_.arg(leaf.when == When::Final ? "T" : "t0", {}));
    }
    throw plastic::InternalError("unhandled leaf kind in lowering");
  }

  const ir::Node* param(int i) {
    const dsl::ParamInfo& p = m_.params[i];
    return ctx_.param(p.name, to_ir(p.shape), i);
  }
  const ir::Node* state(int i) {
    const dsl::StateInfo& s = m_.states[i];
    return ctx_.state(s.name, to_ir(s.shape), i);
  }
  const std::vector<const ir::Node*>& extras() const { return extras_; }

private:
  static std::string suffix(dsl::When w) {
    return w == dsl::When::Final ? "@T" : w == dsl::When::Initial ? "@t0" : "";
  }
  const ir::Node* extra(const ir::Node* n) {
    if (std::find(extras_.begin(), extras_.end(), n) == extras_.end()) extras_.push_back(n);
    return n;
  }
  const dsl::CheckedModel& m_;
  ir::Context& ctx_;
  std::vector<const ir::Node*> extras_;
};

/// Builds the resolved expressions of one function and assembles it.
class FunctionBuilder {
public:
  FunctionBuilder(const dsl::CheckedModel& m, ir::Context& ctx)
      : m_(m), ctx_(ctx), leaves_(m, ctx), exprs_(ctx, std::ref(leaves_)) {}

  const ir::Node* eval(const dsl::ResolvedExpr& e, const dsl::Shape* broadcast_to = nullptr) {
    const ir::Node* v = exprs_.build(e);
    if (broadcast_to && v->shape() != to_ir(*broadcast_to))
      v = ir::broadcast_to(v, to_ir(*broadcast_to));
    return v;
  }

  /// inputs: [time?] + states? + params? + extras (in first-use order).
  ir::Function build(std::string name, std::vector<ir::Output> outputs, bool with_time,
                     bool with_states, bool with_params) {
    std::vector<const ir::Node*> inputs;
    const auto& extras = leaves_.extras();
    const ir::Node* t = with_time ? ctx_.time("t") : nullptr;
    if (t) inputs.push_back(t);
    if (with_states)
      for (size_t i = 0; i < m_.states.size(); ++i)
        inputs.push_back(leaves_.state(static_cast<int>(i)));
    if (with_params)
      for (size_t i = 0; i < m_.params.size(); ++i)
        inputs.push_back(leaves_.param(static_cast<int>(i)));
    for (const ir::Node* e : extras)
      if (e != t) inputs.push_back(e);
    return ir::Function(std::move(name), std::move(inputs), std::move(outputs));
  }

private:
  const dsl::CheckedModel& m_;
  ir::Context& ctx_;
  LeafCollector leaves_;
  ExprToIr exprs_;
};

} // namespace

ModelIR model_to_ir(const dsl::CheckedModel& m, ir::Context& ctx) {
  auto field = [&] {
    FunctionBuilder b(m, ctx);
    std::vector<ir::Output> outs;
    outs.reserve(m.states.size());
    for (const dsl::StateInfo& s : m.states)
      outs.push_back({s.name, b.eval(s.flow_value, &s.shape)});
    return b.build(m.name + ".field", std::move(outs), true, true, true);
  }();
  auto init = [&] {
    FunctionBuilder b(m, ctx);
    std::vector<ir::Output> outs;
    outs.reserve(m.states.size());
    for (const dsl::StateInfo& s : m.states)
      outs.push_back({s.name, b.eval(s.init_value, &s.shape)});
    return b.build(m.name + ".init", std::move(outs), false, false, true);
  }();
  auto outputs = [&](bool per_observation) -> std::optional<ir::Function> {
    FunctionBuilder b(m, ctx);
    std::vector<ir::Output> outs;
    for (const dsl::OutputInfo& o : m.outputs)
      if (o.per_observation == per_observation) outs.push_back({o.name, b.eval(o.value)});
    if (outs.empty()) return std::nullopt;
    return b.build(m.name + (per_observation ? ".observation_outputs" : ".final_outputs"),
                   std::move(outs), per_observation, true, true);
  };
  std::optional<ir::Function> jump;
  bool any_jump = false;
  for (const dsl::StateInfo& s : m.states)
    any_jump |= !s.jump_value.empty();
  if (any_jump) {
    FunctionBuilder b(m, ctx);
    std::vector<ir::Output> outs;
    LeafCollector plain(m, ctx);
    for (size_t i = 0; i < m.states.size(); ++i) {
      const dsl::StateInfo& s = m.states[i];
      // A state without a jump keeps its value: z ↦ z (an identity output).
      const ir::Node* v = !s.jump_value.empty() ? b.eval(s.jump_value, &s.shape)
                                                : ir::add(plain.state(static_cast<int>(i)),
                                                          ctx.constant(0.0, to_ir(s.shape)));
      outs.push_back({s.name, v});
    }
    jump = b.build(m.name + ".jump", std::move(outs), true, true, true);
  }
  auto loss = [&] {
    FunctionBuilder b(m, ctx);
    std::vector<ir::Output> outs{{"loss", b.eval(m.loss_value)}};
    return b.build(m.name + ".loss", std::move(outs), false, false, false);
  }();
  return ModelIR{std::move(field), std::move(init), outputs(false),
                 outputs(true),    std::move(jump), std::move(loss)};
}

} // namespace plastic::irgen
