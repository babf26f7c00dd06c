// Kernels of the initial state and the vector field: init_state and its VJP,
// field, field_vjp and the continuous adjoint system (see kernels.h for the
// choices the ABI leaves open).
#include "compiler/abi/kernel_util.h"
#include "compiler/autodiff/names.h"
#include "compiler/loops/error.h"

namespace plastic::abi::detail {

using loops::Builder;

namespace {

const ir::Function& need(const KernelContext& k, model::FnRole role) {
  const ir::Function* f = k.fns.find(role);
  if (!f)
    throw plastic::InternalError(fmt::format("model assembler: {} has no function '{}'",
                                             k.layout.name, model::to_string(role)));
  return *f;
}

} // namespace

bool build_init_state(const KernelContext& k, loops::Function& out) {
  const ModelLayout& L = k.layout;
  Builder b(k.prefix + "init_state", k.type, k.lanes);
  b.opaque_param("ctx");
  KernelEnv env = env_of(k);
  env.theta = uniform(b, "theta", L.n_params, kIn);
  env.u = varying(b, "u0", L.n_input, kIn);
  Place z0 = varying(b, "z0", L.n_state);
  b.scratch_param();
  emit(b, need(k, model::FnKind::Init), env, {}, state_outputs(L, z0));
  out = b.finish();
  return true;
}

bool build_init_state_vjp(const KernelContext& k, loops::Function& out) {
  const ModelLayout& L = k.layout;
  Builder b(k.prefix + "init_state_vjp", k.type, k.lanes);
  b.opaque_param("ctx");
  KernelEnv env = env_of(k);
  env.theta = uniform(b, "theta", L.n_params, kIn);
  env.u = varying(b, "u0", L.n_input, kIn);
  env.ct_states = varying(b, "z0_bar", L.n_state, kIn);
  GradEnv g;
  g.theta_bar = uniform(b, "theta_bar", L.n_params);
  g.u_bar = varying(b, "u0_bar", L.n_input, kNullableOut);
  b.scratch_param();
  emit(b, need(k, model::FnKind::InitVjp), env, g);
  out = b.finish();
  return true;
}

bool build_field(const KernelContext& k, loops::Function& out) {
  const ModelLayout& L = k.layout;
  Builder b(k.prefix + "field", k.type, k.lanes);
  KernelEnv env = begin_pointwise(b, k, "z");
  Place dz = varying(b, "dz", L.n_state);
  b.scratch_param();
  emit(b, need(k, model::FnKind::Field), env, {}, state_outputs(L, dz));
  out = b.finish();
  return true;
}

bool build_field_vjp(const KernelContext& k, loops::Function& out) {
  const ModelLayout& L = k.layout;
  Builder b(k.prefix + "field_vjp", k.type, k.lanes);
  KernelEnv env = begin_pointwise(b, k, "z");
  env.ct_states = varying(b, "a", L.n_state, kIn);
  GradEnv g = vjp_outputs(b, L, "z_bar", "u_bar");
  b.scratch_param();
  emit(b, need(k, model::FnKind::FieldVjp), env, g);
  out = b.finish();
  return true;
}

bool build_adjoint_field(const KernelContext& k, loops::Function& out) {
  const ModelLayout& L = k.layout;
  Builder b(k.prefix + "adjoint_field", k.type, k.lanes);
  b.opaque_param("ctx");
  KernelEnv env = env_of(k);
  env.t = b.scalar_param("t");
  env.z = varying(b, "z", L.n_state, kIn);
  env.a_states = varying(b, "a", L.n_state, kIn);
  env.theta = uniform(b, "theta", L.n_params, kIn);
  env.u = varying(b, "u", L.n_input, kIn);
  Place dz = varying(b, "dz", L.n_state);
  Place da = varying(b, "da", L.n_state);
  Place dtheta = uniform(b, "dtheta", L.n_params);
  Place u_bar = varying(b, "u_bar", L.n_input, kNullableOut);
  b.scratch_param();
  // dtheta is written (=) with the tile's lane sum on the span of theta the
  // field reads (abi.h field_theta_begin/end): zero the span, then
  // accumulate. The field's parameters all lie in it; nothing outside is
  // touched.
  if (dtheta.valid() && L.field_theta_end > L.field_theta_begin) {
    b.comment("dtheta[span] = 0, then += lane sums of -a^T df/dtheta");
    b.loop("i", L.field_theta_begin, L.field_theta_end,
           [&](const loops::Index& i) { b.store(dtheta.buffer, i, b.constant(0)); });
  }
  std::map<std::string, Place> plain = state_outputs(L, dz);
  const std::string adj_prefix(ad::prefix(ad::Derived::AdjointRate));
  for (auto& [name, p] : state_outputs(L, da, adj_prefix))
    plain[name] = p;
  GradEnv g; // adj.<param> are the field's -a^T df/dtheta: summed into dtheta
  const ir::Function& adj = need(k, model::FnKind::AdjointSystem);
  std::vector<loopgen::InputBinding> in = bind_inputs(adj, env);
  std::vector<loopgen::OutputBinding> outs = bind_outputs(adj, env, g, plain);
  for (size_t i = 0; i < adj.outputs().size(); ++i) {
    const std::string& name = adj.outputs()[i].name;
    std::optional<std::string_view> of = ad::derived_from(ad::Derived::AdjointRate, name);
    if (!of) continue;
    if (const ParamEntry* p = L.param(*of); p && dtheta.valid())
      outs[i] =
          loopgen::OutputBinding::to(dtheta.buffer, p->c.offset, loops::StoreMode::AddLaneSum);
  }
  loopgen::emit_function(b, adj, in, outs);
  // u_bar += a^T df/du: the control part of the field VJP, with cotangent a.
  if (u_bar.valid()) {
    KernelEnv venv = env;
    venv.ct_states = env.a_states;
    GradEnv vg;
    vg.u_bar = u_bar;
    emit(b, need(k, model::FnKind::FieldVjp), venv, vg);
  }
  out = b.finish();
  return true;
}

} // namespace plastic::abi::detail
