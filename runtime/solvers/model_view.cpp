// Validation of plastic_model tables: the checks the runtime makes once per
// model before it trusts the table, so that a malformed table is a Status,
// not a crash inside a kernel.
#include "runtime/solvers/model_view.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace plastic::rt {

Status<SolveFailure> validate_model(const plastic_model& m, int32_t dtype) {
  if (m.abi_version != PLASTIC_ABI_VERSION)
    return invalid_model(fmt::format("model ABI version {} but this runtime speaks version {}",
                                     m.abi_version, PLASTIC_ABI_VERSION),
                         "rebuild the model with the same Plastic version as the runtime");
  if (m.struct_size != 0 && m.struct_size < sizeof(plastic_model))
    return invalid_model(fmt::format("model table is {} bytes, expected at least {}", m.struct_size,
                                     sizeof(plastic_model)));
  if (m.dtype != dtype)
    return invalid_model(fmt::format("model element type is {} but the runtime asked for {}",
                                     m.dtype == PLASTIC_F32 ? "f32" : "f64",
                                     dtype == PLASTIC_F32 ? "f32" : "f64"),
                         "build the model for the element type you train with (--dtype)");
  if (m.lanes < 1 || m.lanes > 64)
    return invalid_model(fmt::format("lanes = {} is not in 1..64", m.lanes));
  if (m.n_state < 1 || m.n_params < 0 || m.n_input < 0 || m.n_static < 0 || m.n_outputs < 0 ||
      m.n_targets < 0)
    return invalid_model(
        fmt::format("bad sizes: state {}, params {}, input {}, static {}, outputs {}, targets {}",
                    m.n_state, m.n_params, m.n_input, m.n_static, m.n_outputs, m.n_targets));
  if (m.field_theta_begin < 0 || m.field_theta_end < m.field_theta_begin ||
      m.field_theta_end > m.n_params)
    return invalid_model(
        fmt::format("the field's span of theta [{}, {}) is not inside theta of {} elements",
                    m.field_theta_begin, m.field_theta_end, m.n_params));
  // Parameter entries: disjoint, inside theta, sizes match shapes.
  if (m.n_param_entries < 0 || (m.n_param_entries > 0 && !m.params))
    return invalid_model("parameter table pointer is null");
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (int32_t i = 0; i < m.n_param_entries; ++i) {
    const plastic_param& p = m.params[i];
    const char* name = p.name ? p.name : "?";
    if (p.rank < 0 || p.rank > PLASTIC_MAX_RANK)
      return invalid_model(fmt::format("parameter {} has rank {}", name, p.rank));
    int64_t size = 1;
    for (int32_t d = 0; d < p.rank; ++d)
      size *= p.shape[d];
    if (size != p.size || p.offset < 0 || p.offset + p.size > m.n_params)
      return invalid_model(
          fmt::format("parameter {} (offset {}, size {}) does not fit theta of {} elements", name,
                      p.offset, p.size, m.n_params));
    if (p.init < PLASTIC_INIT_UNIFORM_FAN_IN || p.init > PLASTIC_INIT_UNIFORM)
      return invalid_model(fmt::format("parameter {} has unknown initializer {}", name, p.init));
    ranges.emplace_back(p.offset, p.offset + p.size);
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].first < ranges[i - 1].second)
      return invalid_model("parameter entries overlap in theta");
  // Input slots tile u exactly.
  if (m.n_input_slots < 0 || (m.n_input_slots > 0 && !m.input_slots))
    return invalid_model("input slot table pointer is null");
  int64_t next = 0;
  for (int32_t i = 0; i < m.n_input_slots; ++i) {
    const plastic_input_slot& s = m.input_slots[i];
    if (s.kind < PLASTIC_INPUT_PATH_VALUE || s.kind > PLASTIC_INPUT_LOGSIG_DRIVER ||
        s.offset != next || s.channels < 0)
      return invalid_model(
          fmt::format("input slot {} ({}) is malformed or out of order", i, s.name ? s.name : "?"));
    next += s.channels;
  }
  if (m.n_input_slots > 0 && next != m.n_input)
    return invalid_model(
        fmt::format("input slots cover {} elements but n_input = {}", next, m.n_input));
  return {};
}

bool fused_kernels_match(const plastic_model& m, const ButcherTableau& tableau) {
  return m.step_method && tableau.name == std::string_view(m.step_method);
}

Status<SolveFailure> check_kernels(const plastic_model& m, const SolverOptions& options,
                                   const GradientMethod* gradient, bool has_targets,
                                   bool has_jumps) {
  const plastic_kernels& k = m.kernels;
  const ButcherTableau& tab = *options.tableau;
  const bool fused = options.use_fused_kernels && fused_kernels_match(m, tab);
  const std::string method(tab.name);
  // Forward: the adaptive driver needs f(t0, z0) (initial step, FSAL start), so `field` always.
  if (!k.field && !(fused && !options.adaptive() && k.step))
    return invalid_model(fmt::format("the model has no field kernel and no fused {} step", method));
  if (has_targets && (!k.output || !k.loss))
    return invalid_model("observations carry targets but the model has no output or loss kernel");
  if (has_jumps && !k.jump)
    return invalid_model("observations request jumps but the model has no jump kernel");
  if (!gradient) return {};
  if (has_targets && (!k.output_vjp || !k.loss_vjp))
    return invalid_model("the model has no output_vjp or loss_vjp kernel, needed for gradients");
  if (has_jumps && !k.jump_vjp)
    return invalid_model("the model has no jump_vjp kernel, needed for gradients");
  if (*gradient == GradientMethod::Adjoint) {
    if (!k.adjoint_field && !(k.field && k.field_vjp))
      return invalid_model("the adjoint method needs adjoint_field, or field and field_vjp");
  } else if (!(fused && k.step_vjp) && !(k.field && k.field_vjp)) {
    return invalid_model(
        fmt::format("backpropagating through {} steps needs a fused step_vjp for {} "
                    "or field and field_vjp",
                    method, method));
  }
  return {};
}

uint64_t max_scratch_bytes(const plastic_model& m) {
  uint64_t most = 0;
#define PLASTIC_ABI_KERNEL(name, Id) most = std::max(most, m.scratch.name);
#include "runtime/abi_kernels.def"
  return most;
}

} // namespace plastic::rt
