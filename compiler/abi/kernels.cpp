// The kernel table of a model (see kernels.h): dispatch over the families.
#include "compiler/abi/kernels.h"

#include "compiler/abi/kernel_util.h"
#include "runtime/solvers/tableau.h"

namespace plastic::abi {

std::string_view kernel_name(KernelId id) {
  static constexpr std::string_view names[kKernelCount] = {
#define PLASTIC_ABI_KERNEL(name, Id) #name,
#include "runtime/abi_kernels.def"
  };
  return names[static_cast<int>(id)];
}

bool is_gradient_kernel(KernelId id) {
  const std::string_view name = kernel_name(id);
  return id == KernelId::AdjointField || id == KernelId::AdjointStep ||
         (name.size() > 4 && name.substr(name.size() - 4) == "_vjp");
}

bool kernel_needed(KernelId id, GradientUse use) {
  switch (use) {
  case GradientUse::All:
    return true;
  case GradientUse::None:
    return !is_gradient_kernel(id);
  case GradientUse::Backprop:
    return id != KernelId::AdjointField && id != KernelId::AdjointStep;
  case GradientUse::Adjoint:
    return id != KernelId::StepVjp;
  }
  return true;
}

ModelKernels build_kernels(const model::ModelFunctions& fns, const ModelLayout& layout,
                           loops::ElemType type, int lanes, const std::string& prefix,
                           GradientUse use) {
  using Builder = bool (*)(const detail::KernelContext&, loops::Function&);
  static constexpr Builder builders[kKernelCount] = {
#define PLASTIC_ABI_KERNEL(name, Id) detail::build_##name,
#include "runtime/abi_kernels.def"
  };
  detail::KernelContext k{fns, layout, type, lanes, prefix};
  ModelKernels out;
  out.module.name = prefix.empty() ? layout.name : prefix + "module";
  for (int i = 0; i < kKernelCount; ++i) {
    loops::Function f;
    if (kernel_needed(static_cast<KernelId>(i), use) && builders[i](k, f)) {
      out.index[static_cast<size_t>(i)] = static_cast<int>(out.module.functions.size());
      out.module.functions.push_back(std::move(f));
    } else {
      out.index[static_cast<size_t>(i)] = -1;
    }
  }
  return out;
}

namespace detail {

void emit(loops::Builder& b, const ir::Function& fn, const KernelEnv& env, const GradEnv& grad,
          const std::map<std::string, Place>& plain, double theta_scale) {
  std::vector<loopgen::InputBinding> in = bind_inputs(fn, env);
  std::vector<loopgen::OutputBinding> out = bind_outputs(fn, env, grad, plain, theta_scale);
  loopgen::emit_function(b, fn, in, out);
}

const model::ModelStep* model_step(const KernelContext& k) {
  // The layout names the method the way the ABI table does; its tableau is
  // the typed key of the step.
  return k.fns.step(rt::find_tableau(k.layout.step_method));
}

} // namespace detail

} // namespace plastic::abi
