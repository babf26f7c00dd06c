// Kernels of the readout side: output and its VJP (final or per-observation
// outputs), the per-lane loss and its VJP, and the jump map and its VJP.
#include "compiler/abi/kernel_util.h"

namespace plastic::abi::detail {

using loops::Builder;

namespace {

// The final outputs (read at T) or the observation outputs (read at every
// observation).
model::FnKind output_kind(const KernelContext& k) {
  return k.layout.readout == PLASTIC_READOUT_EACH_OBSERVATION ? model::FnKind::ObservationOutputs
                                                              : model::FnKind::FinalOutputs;
}

std::map<std::string, Place> output_places(const ModelLayout& L, Place y) {
  std::map<std::string, Place> m;
  for (const Slice& o : L.outputs)
    m[o.name] = {y.buffer, y.base + o.offset};
  return m;
}

} // namespace

bool build_output(const KernelContext& k, loops::Function& out) {
  const ir::Function* fn = k.fns.find(output_kind(k));
  if (!fn) return false;
  const ModelLayout& L = k.layout;
  Builder b(k.prefix + "output", k.type, k.lanes);
  KernelEnv env = begin_pointwise(b, k, "z"); // t is also the final time T of final outputs
  Place y = varying(b, "y", L.n_outputs);
  b.scratch_param();
  emit(b, *fn, env, {}, output_places(L, y));
  out = b.finish();
  return true;
}

bool build_output_vjp(const KernelContext& k, loops::Function& out) {
  const ir::Function* fn = k.fns.find(model::vjp_of(output_kind(k)));
  if (!fn) return false;
  const ModelLayout& L = k.layout;
  Builder b(k.prefix + "output_vjp", k.type, k.lanes);
  KernelEnv env = begin_pointwise(b, k, "z");
  env.ct_named = output_places(L, varying(b, "y_bar", L.n_outputs, kIn));
  GradEnv g = vjp_outputs(b, L, "z_bar", "u_bar");
  b.scratch_param();
  emit(b, *fn, env, g);
  out = b.finish();
  return true;
}

bool build_loss(const KernelContext& k, loops::Function& out) {
  const ir::Function* fn = k.fns.find(model::FnKind::Loss);
  if (!fn) return false;
  const ModelLayout& L = k.layout;
  Builder b(k.prefix + "loss", k.type, k.lanes);
  b.opaque_param("ctx");
  KernelEnv env = env_of(k);
  env.y = varying(b, "y", L.n_outputs, kIn);
  env.target = varying(b, "target", L.n_targets, kIn);
  Place loss = varying(b, "loss", 1);
  b.scratch_param();
  emit(b, *fn, env, {}, {{"loss", loss}});
  out = b.finish();
  return true;
}

bool build_loss_vjp(const KernelContext& k, loops::Function& out) {
  const ir::Function* fn = k.fns.find(model::FnKind::LossVjp);
  if (!fn) return false;
  const ModelLayout& L = k.layout;
  Builder b(k.prefix + "loss_vjp", k.type, k.lanes);
  b.opaque_param("ctx");
  KernelEnv env = env_of(k);
  env.y = varying(b, "y", L.n_outputs, kIn);
  env.target = varying(b, "target", L.n_targets, kIn);
  env.ct_named["loss"] = varying(b, "loss_bar", 1, kIn);
  GradEnv g;
  g.y_bar = varying(b, "y_bar", L.n_outputs);
  b.scratch_param();
  emit(b, *fn, env, g);
  out = b.finish();
  return true;
}

bool build_jump(const KernelContext& k, loops::Function& out) {
  const ir::Function* fn = k.fns.find(model::FnKind::Jump);
  if (!fn) return false;
  const ModelLayout& L = k.layout;
  Builder b(k.prefix + "jump", k.type, k.lanes);
  KernelEnv env = begin_pointwise(b, k, "z_minus");
  Place zp = varying(b, "z_plus", L.n_state);
  b.scratch_param();
  emit(b, *fn, env, {}, state_outputs(L, zp));
  out = b.finish();
  return true;
}

bool build_jump_vjp(const KernelContext& k, loops::Function& out) {
  const ir::Function* fn = k.fns.find(model::FnKind::JumpVjp);
  if (!fn) return false;
  const ModelLayout& L = k.layout;
  Builder b(k.prefix + "jump_vjp", k.type, k.lanes);
  KernelEnv env = begin_pointwise(b, k, "z_minus");
  env.ct_states = varying(b, "z_plus_bar", L.n_state, kIn);
  GradEnv g = vjp_outputs(b, L, "z_minus_bar", "u_bar");
  b.scratch_param();
  emit(b, *fn, env, g);
  out = b.finish();
  return true;
}

} // namespace plastic::abi::detail
