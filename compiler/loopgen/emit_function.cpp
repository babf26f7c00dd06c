// The driver of emit_function (emit_function.h): checks the bindings,
// schedules the DAG (schedule.h), then walks the schedule's steps, giving
// each materialised node a scratch buffer for exactly its live range
// (scratch_allocator.h), opening if_present blocks for nullable outputs, and
// turning each output binding into stores with its mode and scale.
//
// Binding errors are bugs of the caller (the model assembler), so they are
// InternalErrors that name the function, the leaf or output, and the node.
#include <algorithm>

#include <fmt/format.h>

#include "compiler/loopgen/emitter.h"
#include "compiler/loopgen/prefetch.h"
#include "compiler/loops/error.h"

namespace plastic::loopgen {

using loops::Expr;
using loops::Index;
using loops::Lanes;
using loops::StoreMode;

namespace {

const char* mode_name(StoreMode m) {
  switch (m) {
  case StoreMode::Set:
    return "Set";
  case StoreMode::Add:
    return "Add";
  case StoreMode::AddLaneSum:
    return "AddLaneSum";
  }
  return "?";
}

void check_inputs(const loops::Builder& b, const ir::Function& fn,
                  std::span<const InputBinding> inputs, std::vector<bool>& uniform) {
  PLASTIC_CHECK(inputs.size() == fn.inputs().size(),
                "emit_function '{}': {} input bindings for {} inputs", fn.name(), inputs.size(),
                fn.inputs().size());
  const loops::Function& lf = b.function();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::Node* leaf = fn.inputs()[i];
    const InputBinding& in = inputs[i];
    switch (in.kind) {
    case InputBinding::Kind::Buffer: {
      PLASTIC_CHECK(in.buffer.valid() && in.buffer.id < lf.buffers.size(),
                    "emit_function '{}': input '{}' bound to an invalid buffer", fn.name(),
                    leaf->name());
      const loops::BufferDecl& d = lf.buffer(in.buffer);
      PLASTIC_CHECK(in.offset >= 0 && in.offset + leaf->numel() <= d.size,
                    "emit_function '{}': input '{}' ({}) at offset {} overruns buffer '{}' of "
                    "size {}",
                    fn.name(), leaf->name(), ir::type_str(leaf->dtype(), leaf->shape()), in.offset,
                    d.name, d.size);
      PLASTIC_CHECK(!d.nullable,
                    "emit_function '{}': input '{}' bound to nullable buffer '{}' (bind an "
                    "absent input as zero)",
                    fn.name(), leaf->name(), d.name);
      uniform[i] = d.lanes == Lanes::Uniform;
      break;
    }
    case InputBinding::Kind::Scalar:
      PLASTIC_CHECK(leaf->numel() == 1 && in.scalar.valid(),
                    "emit_function '{}': input '{}' of shape {} bound to a scalar", fn.name(),
                    leaf->name(), ir::shape_str(leaf->shape()));
      PLASTIC_CHECK(b.lanes_of(in.scalar) == Lanes::Uniform,
                    "emit_function '{}': input '{}' bound to a varying scalar expression",
                    fn.name(), leaf->name());
      uniform[i] = true;
      break;
    case InputBinding::Kind::Zero:
      uniform[i] = true;
      break;
    }
  }
}

} // namespace

void emit_function(loops::Builder& b, const ir::Function& fn, std::span<const InputBinding> inputs,
                   std::span<const OutputBinding> outputs) {
  PLASTIC_CHECK(outputs.size() == fn.outputs().size(),
                "emit_function '{}': {} output bindings for {} outputs", fn.name(), outputs.size(),
                fn.outputs().size());
  ScheduleInput sin;
  sin.vector_bits = b.lanes() * 8 * loops::elem_size(b.function().type);
  sin.input_uniform.assign(inputs.size(), false);
  check_inputs(b, fn, inputs, sin.input_uniform);

  // Outputs: liveness, regions (one per nullable buffer), aliasing.
  const loops::Function& lf = b.function();
  std::vector<loops::Buffer> region_buffer;
  for (size_t j = 0; j < outputs.size(); ++j) {
    const OutputBinding& out = outputs[j];
    const ir::Output& o = fn.outputs()[j];
    // Adding a zero constant changes nothing: the gradients of parameters an
    // output does not depend on (every θ of a model's init_state_vjp whose
    // initial state is 0) would otherwise cost a lane-sum per element.
    bool adds_zero = out.mode != StoreMode::Set && o.node->is_splat_of(0.0);
    bool live = out.kind == OutputBinding::Kind::Buffer && !adds_zero;
    sin.output_live.push_back(live);
    sin.output_region.push_back(kTopRegion);
    sin.output_offset.push_back(out.offset);
    sin.output_may_alias.push_back(live && !lf.buffer(out.buffer).noalias);
    if (!live) continue;
    PLASTIC_CHECK(out.buffer.valid() && out.buffer.id < lf.buffers.size(),
                  "emit_function '{}': output '{}' bound to an invalid buffer", fn.name(), o.name);
    const loops::BufferDecl& d = lf.buffer(out.buffer);
    PLASTIC_CHECK(out.offset >= 0 && out.offset + o.node->numel() <= d.size,
                  "emit_function '{}': output '{}' ({}) at offset {} overruns buffer '{}' of "
                  "size {}",
                  fn.name(), o.name, ir::type_str(o.node->dtype(), o.node->shape()), out.offset,
                  d.name, d.size);
    PLASTIC_CHECK(o.node->dtype() != ir::DType::I1,
                  "emit_function '{}': output '{}' is a mask (%{} {}); masks only feed select",
                  fn.name(), o.name, o.node->id(), ir::op_name(o.node->op()));
    PLASTIC_CHECK(out.mode != StoreMode::AddLaneSum || d.lanes == Lanes::Uniform,
                  "emit_function '{}': output '{}' sums over lanes into varying buffer '{}'",
                  fn.name(), o.name, d.name);
    if (!d.noalias) sin.outputs_may_alias = true;
    if (d.nullable) {
      size_t r = 0;
      while (r < region_buffer.size() && region_buffer[r].id != out.buffer.id)
        ++r;
      if (r == region_buffer.size()) region_buffer.push_back(out.buffer);
      sin.output_region.back() = static_cast<int>(r);
    }
  }
  sin.num_regions = static_cast<int>(region_buffer.size());
  for (const InputBinding& in : inputs)
    sin.input_alias_offset.push_back(
        in.kind == InputBinding::Kind::Buffer && !lf.buffer(in.buffer).noalias ? in.offset : -1);

  Schedule sched(fn, sin);
  for (size_t j = 0; j < outputs.size(); ++j) {
    if (!sin.output_live[j]) continue;
    const ir::Output& o = fn.outputs()[j];
    const loops::BufferDecl& d = lf.buffer(outputs[j].buffer);
    PLASTIC_CHECK(outputs[j].mode == StoreMode::AddLaneSum || d.lanes == Lanes::Varying ||
                      sched.at(o.node).uniform,
                  "emit_function '{}': output '{}' (%{} {}) is varying but stored with {} into "
                  "uniform buffer '{}' (a θ gradient needs AddLaneSum)",
                  fn.name(), o.name, o.node->id(), ir::op_name(o.node->op()),
                  mode_name(outputs[j].mode), d.name);
  }

  detail::Emitter em(b, fn, sched, inputs);
  ScratchAllocator scratch(b);
  em.set_scratch(&scratch);

  auto store_out = [&](size_t j, const Index& flat, Expr v) {
    const OutputBinding& out = outputs[j];
    Index at = flat + out.offset;
    double factor = out.scale;
    bool lane_sum = out.mode == StoreMode::AddLaneSum;
    // Σ over the lanes of a value equal in every lane is L times the value.
    if (lane_sum && b.lanes_of(v) == Lanes::Uniform) factor *= b.lanes();
    if (factor != 1.0) v = b.mul(v, b.constant(factor));
    if (out.mode == StoreMode::Set)
      b.store(out.buffer, at, v);
    else if (out.mode == StoreMode::Add || b.lanes_of(v) == Lanes::Uniform)
      b.accumulate(out.buffer, at, v);
    else
      b.accumulate_lanes(out.buffer, at, v);
  };

  // Outputs that can hold their node's value while later steps read it.
  // Not when outputs may alias inputs: then nothing is stored before every
  // input has been read.
  std::vector<size_t> plain_outputs;
  std::vector<bool> written(outputs.size(), false);
  for (size_t j = 0; j < outputs.size() && !sin.outputs_may_alias; ++j) {
    if (!sin.output_live[j] || outputs[j].mode != StoreMode::Set || outputs[j].scale != 1.0)
      continue;
    const loops::BufferDecl& d = lf.buffer(outputs[j].buffer);
    bool node_uniform = sched.at(fn.outputs()[j].node).uniform;
    if (!d.nullable && (d.lanes == Lanes::Uniform) == node_uniform) plain_outputs.push_back(j);
  }

  b.comment(fmt::format("{}: {} nodes", fn.name(), sched.order().size()));
  const std::vector<Step>& steps = sched.steps();
  const std::optional<PrefetchPlan> prefetch = plan_prefetch(fn, sched, inputs, lf);
  std::vector<std::vector<loops::Buffer>> free_after(steps.size());
  for (size_t s = 0; s < steps.size(); ++s) {
    const Step& st = steps[s];
    if (prefetch) emit_prefetch_burst(b, *prefetch, s);
    switch (st.kind) {
    case Step::Kind::Open:
      b.begin_if_present(region_buffer[static_cast<size_t>(st.region)]);
      break;
    case Step::Kind::Close:
      b.end_if_present();
      break;
    case Step::Kind::Compute: {
      const ir::Node* n = st.node;
      const NodeSchedule& ns = sched.at(n);
      if (ns.direct) {
        std::vector<size_t> targets;
        for (size_t j = 0; j < outputs.size(); ++j)
          if (sin.output_live[j] && fn.outputs()[j].node == n) targets.push_back(j);
        std::string names;
        for (size_t j : targets)
          names += (names.empty() ? "" : ", ") + fn.outputs()[j].name;
        b.comment(fmt::format("{} -> {}", detail::Emitter::describe(n), names), n->loc().line);
        em.emit_root(n, [&](const Index& flat, Expr v) {
          for (size_t j : targets)
            store_out(j, flat, v);
        });
        break;
      }
      // An output stored plainly (=, no scale) in a buffer of its lane class
      // is its own storage: later reads load it back from there.
      auto inplace = std::find_if(plain_outputs.begin(), plain_outputs.end(),
                                  [&](size_t j) { return fn.outputs()[j].node == n; });
      if (inplace != plain_outputs.end() && ns.region == kTopRegion) {
        const OutputBinding& out = outputs[*inplace];
        b.comment(
            fmt::format("{} -> {}", detail::Emitter::describe(n), fn.outputs()[*inplace].name),
            n->loc().line);
        em.emit_root(n,
                     [&](const Index& flat, Expr v) { b.store(out.buffer, flat + out.offset, v); });
        em.set_location(n, {out.buffer, out.offset});
        written[*inplace] = true;
        break;
      }
      // A group of contractions is emitted whole at its first member's step
      // (the others' steps follow at once and find it done).
      std::span<const ir::Node* const> group = sched.group(n);
      if (!group.empty() && group.front() != n) break;
      std::span<const ir::Node* const> roots = group.empty() ? std::span(&n, 1) : group;
      std::vector<loops::Buffer> bufs;
      for (const ir::Node* m : roots) {
        const NodeSchedule& ms = sched.at(m);
        bufs.push_back(scratch.acquire(ms.uniform ? Lanes::Uniform : Lanes::Varying, m->numel()));
        b.comment(
            fmt::format("{} -> {}", detail::Emitter::describe(m), lf.buffer(bufs.back()).name),
            m->loc().line);
        free_after[static_cast<size_t>(std::max<int64_t>(ms.last_use, static_cast<int64_t>(s)))]
            .push_back(bufs.back());
      }
      if (group.empty()) {
        em.emit_root(n, [&](const Index& flat, Expr v) { b.store(bufs[0], flat, v); });
      } else {
        std::vector<detail::Sink> sinks;
        sinks.reserve(bufs.size());
        for (loops::Buffer buf : bufs)
          sinks.emplace_back([&b, buf](const Index& flat, Expr v) { b.store(buf, flat, v); });
        em.emit_contracts(group, sinks);
      }
      for (size_t i = 0; i < roots.size(); ++i)
        em.set_location(roots[i], {bufs[i], 0});
      break;
    }
    case Step::Kind::Output: {
      size_t j = static_cast<size_t>(st.output);
      if (written[j]) break;
      const ir::Node* n = fn.outputs()[j].node;
      b.comment(fmt::format("output {} = %{}", fn.outputs()[j].name, n->id()), n->loc().line);
      if (sched.at(n).materialise) {
        em.for_flat(n->numel(),
                    [&](const Index& i) { store_out(j, i, em.eval(n, detail::Pos::at_flat(i))); });
      } else {
        em.emit_root(n, [&](const Index& flat, Expr v) { store_out(j, flat, v); });
      }
      break;
    }
    }
    for (loops::Buffer buf : free_after[s])
      scratch.release(buf);
  }
}

} // namespace plastic::loopgen
