// Kernels of the fused solver step of the model's method: step, step_vjp and
// step_adaptive (see kernels.h for how stage blocks, statics, aliasing and
// FSAL are handled), and adjoint_step, the continuous adjoint's augmented
// system stepped with the same tableau.
#include <algorithm>

#include <fmt/format.h>

#include "compiler/abi/kernel_util.h"
#include "compiler/autodiff/names.h"
#include "compiler/loops/error.h"

namespace plastic::abi::detail {

using loops::Builder;

namespace {

// Block of u_stages holding node k: the first stage that evaluates at it.
int64_t block_of_node(const ad::RkStep& info, int node) {
  for (size_t i = 0; i < info.stage_node.size(); ++i)
    if (info.stage_node[i] == node) return static_cast<int64_t>(i);
  throw plastic::InternalError(fmt::format("model assembler: no stage uses node {}", node));
}

int64_t stages(const model::ModelStep& s) {
  return static_cast<int64_t>(s.info.stage_node.size());
}

// Where every leaf of a step function lives: controls of node k in the block
// of its first stage, statics in block 0.
void bind_stages(KernelEnv& env, const model::ModelStep& s, Place u_stages, int64_t m) {
  const ad::RkStep* info = &s.info;
  env.u = u_stages;
  env.u_node = [info, u_stages, m](int node) {
    if (!u_stages.valid()) return Place{};
    return Place{u_stages.buffer, u_stages.base + block_of_node(*info, node) * m};
  };
}

// The step VJP writes z0_bar whole: z1 = z0 + h Σ b_i k_i passes z̄₁
// through, so every state has a d.<state> output.
void check_every_state_written(const ModelLayout& L, const ir::Function& fn) {
  for (const Slice& st : L.states) {
    const std::string name = ad::derived_name(ad::Derived::Gradient, st.name);
    if (std::ranges::none_of(fn.outputs(), [&](const ir::Output& o) { return o.name == name; }))
      throw plastic::InternalError(
          fmt::format("model assembler: {} has no output {}", fn.name(), name));
  }
}

} // namespace

bool build_step(const KernelContext& k, loops::Function& out) {
  const model::ModelStep* step = model_step(k);
  if (!step) return false;
  const model::ModelStep& s = *step;
  const ModelLayout& L = k.layout;
  Builder b(k.prefix + "step", k.type, k.lanes);
  b.opaque_param("ctx");
  KernelEnv env = env_of(k);
  env.t = b.scalar_param("t");
  env.h = b.scalar_param("h");
  env.z = varying(b, "z0", L.n_state, {.readonly = true, .may_alias = true});
  env.theta = uniform(b, "theta", L.n_params, kIn);
  bind_stages(env, s, varying(b, "u_stages", stages(s) * L.n_input, kIn), L.n_input);
  Place z1 = varying(b, "z1", L.n_state, {.may_alias = true});
  b.scratch_param();
  // z1 may be z0: the scheduler computes every stage before the first store,
  // then writes z1 = z0 + h Σ b_i k_i straight from the loop that reads z0
  // element for element (no copy through scratch; schedule.h).
  emit(b, s.step.fn, env, {}, state_outputs(L, z1));
  out = b.finish();
  return true;
}

bool build_step_vjp(const KernelContext& k, loops::Function& out) {
  const model::ModelStep* step = model_step(k);
  if (!step) return false;
  const model::ModelStep& s = *step;
  const ModelLayout& L = k.layout;
  Builder b(k.prefix + "step_vjp", k.type, k.lanes);
  b.opaque_param("ctx");
  KernelEnv env = env_of(k);
  env.t = b.scalar_param("t");
  env.h = b.scalar_param("h");
  env.z = varying(b, "z0", L.n_state, kIn);
  env.z.cold = true; // the direct method reads it back from its tape
  env.theta = uniform(b, "theta", L.n_params, kIn);
  const int64_t m = L.n_input;
  bind_stages(env, s, varying(b, "u_stages", stages(s) * m, kIn), m);
  env.ct_states = varying(b, "z1_bar", L.n_state, kIn);
  GradEnv g;
  g.z_bar = varying(b, "z0_bar", L.n_state);
  g.theta_bar = uniform(b, "theta_bar", L.n_params);
  Place us_bar = varying(b, "u_stages_bar", stages(s) * m, kNullableOut);
  g.u_bar = us_bar; // statics: block 0
  const ad::RkStep* info = &s.info;
  g.u_node_bar = [info, us_bar, m](int node) {
    if (!us_bar.valid()) return Place{};
    return Place{us_bar.buffer, us_bar.base + block_of_node(*info, node) * m};
  };
  b.scratch_param();
  // z0_bar is written, not accumulated, so the caller need not zero it and
  // the kernel need not read it back.
  check_every_state_written(L, s.vjp.fn);
  emit(b, s.vjp.fn, env, g, state_outputs(L, g.z_bar, ad::derived_name(ad::Derived::Gradient, "")));
  if (s.static_vjp && us_bar.valid()) {
    GradEnv sg;
    sg.u_bar = us_bar;
    emit(b, s.static_vjp->fn, env, sg);
  }
  out = b.finish();
  return true;
}

bool build_step_adaptive(const KernelContext& k, loops::Function& out) {
  const model::ModelStep* step = model_step(k);
  if (!step || !step->info.adaptive) return false;
  const model::ModelStep& s = *step;
  const ModelLayout& L = k.layout;
  Builder b(k.prefix + "step_adaptive", k.type, k.lanes);
  b.opaque_param("ctx");
  KernelEnv env = env_of(k);
  env.t = b.scalar_param("t");
  env.h = b.scalar_param("h");
  env.z = varying(b, "z0", L.n_state, kIn);
  env.theta = uniform(b, "theta", L.n_params, kIn);
  const int64_t m = L.n_input;
  bind_stages(env, s, varying(b, "u_stages", stages(s) * m, kIn), m);
  Place k_first = varying(b, "k_first", L.n_state, kIn);
  Place z1 = varying(b, "z1", L.n_state);
  Place err = varying(b, "err", L.n_state);
  Place k_last = varying(b, "k_last", L.n_state, kNullableOut);
  b.scratch_param();
  std::map<std::string, Place> plain = state_outputs(L, z1);
  const std::string err_prefix(ad::prefix(ad::Derived::ErrorEstimate));
  for (auto& [name, p] : state_outputs(L, err, err_prefix))
    plain[name] = p;
  if (s.fsal) {
    // First Same As Last: stage 1 is the caller's k_first, and the last
    // stage, f(t + h, z1), is written to k_last — s - 1 field evaluations.
    env.k_first = k_first;
    const std::string last_prefix(ad::prefix(ad::Derived::LastStage));
    for (auto& [name, p] : state_outputs(L, k_last, last_prefix))
      plain[name] = p;
    emit(b, s.fsal->fn, env, {}, plain);
  } else {
    // Not FSAL: stage 1 is recomputed (k_first unused) and k_last untouched.
    emit(b, s.step.fn, env, {}, plain);
  }
  out = b.finish();
  return true;
}

bool build_adjoint_step(const KernelContext& k, loops::Function& out) {
  const model::ModelStep* step = model_step(k);
  if (!step || !step->adjoint) return false;
  const model::ModelStep& s = *step;
  const ModelLayout& L = k.layout;
  Builder b(k.prefix + "adjoint_step", k.type, k.lanes);
  b.opaque_param("ctx");
  KernelEnv env = env_of(k);
  env.t = b.scalar_param("t");
  env.h = b.scalar_param("h");
  env.z = varying(b, "z0", L.n_state, kIn);
  env.a_states = varying(b, "a0", L.n_state, kIn);
  env.theta = uniform(b, "theta", L.n_params, kIn);
  const int64_t m = L.n_input;
  bind_stages(env, s, varying(b, "u_stages", stages(s) * m, kIn), m);
  Place z1 = varying(b, "z1", L.n_state);
  Place a1 = varying(b, "a1", L.n_state);
  Place dtheta = uniform(b, "dtheta", L.n_params);
  // Declared writable either way (the C signature is the ABI's); only an
  // embedded pair writes them, and may then assume them non-NULL.
  const bool adaptive = s.info.adaptive;
  const loops::BufferOptions err_options = adaptive ? loops::BufferOptions{} : kNullableOut;
  Place err = varying(b, "err", 2 * L.n_state, err_options);
  Place dtheta_err = uniform(b, "dtheta_err", L.n_params, err_options);
  if (!adaptive) err = dtheta_err = Place{};
  b.scratch_param();
  // As adjoint_field: dtheta (and dtheta_err) are written (=) on the field's
  // span of theta; the step's quadratures h Σ b_i adj.<param> (h Σ e_i ...)
  // are lane-summed into them.
  for (const Place& g : {dtheta, dtheta_err})
    if (g.valid() && L.field_theta_end > L.field_theta_begin) {
      b.comment("theta span = 0, then += lane sums of the step's parameter quadrature");
      b.loop("i", L.field_theta_begin, L.field_theta_end,
             [&](const loops::Index& i) { b.store(g.buffer, i, b.constant(0)); });
    }
  const std::string adj(ad::prefix(ad::Derived::Adjoint));
  const std::string err_prefix(ad::prefix(ad::Derived::ErrorEstimate));
  std::map<std::string, Place> plain = state_outputs(L, z1);
  for (auto& [name, p] : state_outputs(L, a1, adj))
    plain[name] = p;
  if (err.valid()) {
    for (auto& [name, p] : state_outputs(L, err, err_prefix))
      plain[name] = p;
    for (auto& [name, p] : state_outputs(L, Place{err.buffer, L.n_state}, err_prefix + adj))
      plain[name] = p;
  }
  const ir::Function& fn = s.adjoint->fn;
  GradEnv g;
  std::vector<loopgen::InputBinding> in = bind_inputs(fn, env);
  std::vector<loopgen::OutputBinding> outs = bind_outputs(fn, env, g, plain);
  for (size_t i = 0; i < fn.outputs().size(); ++i) {
    std::string_view name = fn.outputs()[i].name;
    Place target = dtheta;
    if (auto e = ad::derived_from(ad::Derived::ErrorEstimate, name)) {
      name = *e;
      target = dtheta_err;
    }
    std::optional<std::string_view> of = ad::derived_from(ad::Derived::AdjointRate, name);
    if (!of || !target.valid()) continue;
    if (const ParamEntry* p = L.param(*of))
      outs[i] =
          loopgen::OutputBinding::to(target.buffer, p->c.offset, loops::StoreMode::AddLaneSum);
  }
  loopgen::emit_function(b, fn, in, outs);
  out = b.finish();
  return true;
}

} // namespace plastic::abi::detail
