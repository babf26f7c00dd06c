// Helpers shared by the kernel families (kernels_*.cpp): declaring ABI
// parameters that may be empty, and output maps laid out like the state.
// Internal to compiler/abi.
//
// Internal header of compiler/abi/: nothing outside that folder includes it.
#pragma once

#include <map>
#include <string>

#include "compiler/abi/bind.h"
#include "compiler/abi/kernels.h"
#include "compiler/loops/loop_builder.h"

namespace plastic::abi::detail {

/// A per-sample array parameter of `size` elements. An empty array (n_input
/// = 0, ...) keeps its pointer in the C signature as an opaque parameter the
/// kernel never touches, and gives an invalid Place.
inline Place varying(loops::Builder& b, const std::string& name, int64_t size,
                     loops::BufferOptions o = {}) {
  if (size <= 0) {
    b.opaque_param(name);
    return {};
  }
  return {b.varying_param(name, size, o), 0};
}
/// The same for shared (theta-like) arrays.
inline Place uniform(loops::Builder& b, const std::string& name, int64_t size,
                     loops::BufferOptions o = {}) {
  if (size <= 0) {
    b.opaque_param(name);
    return {};
  }
  return {b.uniform_param(name, size, o), 0};
}

inline constexpr loops::BufferOptions kIn{.readonly = true};
inline constexpr loops::BufferOptions kNullableOut{.nullable = true};

/// Outputs named "<prefix><state>" stored at the state's offset in `p`.
inline std::map<std::string, Place> state_outputs(const ModelLayout& L, Place p,
                                                  const std::string& prefix = "") {
  std::map<std::string, Place> m;
  for (const Slice& s : L.states)
    m[prefix + s.name] = {p.buffer, p.base + s.offset};
  return m;
}

inline KernelEnv env_of(const KernelContext& k) {
  KernelEnv e;
  e.layout = &k.layout;
  e.model = k.fns.model.get();
  return e;
}

/// The parameters most kernels start with, in ABI order: (ctx, t, <z>,
/// theta, u), with t, z, theta and u bound in the returned environment.
inline KernelEnv begin_pointwise(loops::Builder& b, const KernelContext& k,
                                 const std::string& z_name) {
  const ModelLayout& L = k.layout;
  b.opaque_param("ctx");
  KernelEnv env = env_of(k);
  env.t = b.scalar_param("t");
  env.z = varying(b, z_name, L.n_state, kIn);
  env.theta = uniform(b, "theta", L.n_params, kIn);
  env.u = varying(b, "u", L.n_input, kIn);
  return env;
}

/// The outputs every VJP kernel ends with, in ABI order: <z_bar> (+=),
/// theta_bar (+= sum over lanes), <u_bar> (+=, may be NULL).
inline GradEnv vjp_outputs(loops::Builder& b, const ModelLayout& L, const std::string& z_bar,
                           const std::string& u_bar) {
  GradEnv g;
  g.z_bar = varying(b, z_bar, L.n_state);
  g.theta_bar = uniform(b, "theta_bar", L.n_params);
  g.u_bar = varying(b, u_bar, L.n_input, kNullableOut);
  return g;
}

/// Emits `fn` with `env`'s inputs and the given output placement.
void emit(loops::Builder& b, const ir::Function& fn, const KernelEnv& env, const GradEnv& grad,
          const std::map<std::string, Place>& plain = {}, double theta_scale = 1.0);

/// The model's fused step for its own method (layout.step_method); null if none.
const model::ModelStep* model_step(const KernelContext& k);

} // namespace plastic::abi::detail
