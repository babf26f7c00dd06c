// JIT compilation of a model's kernels into a live plastic_model table (see
// compiled_model.h).
#include "compiler/backend/compiled_model.h"

#include <chrono>
#include <mutex>

#include "compiler/abi/table.h"
#include "compiler/backend/llvm/jit.h"

namespace plastic::backend {

using namespace ::plastic::loops;
using namespace ::plastic::abi;

struct CompiledModel::State {
  ModelLayout layout;
  ModelKernels kernels;
  backend::JitModule module;
  ModelTable table;
  double assemble_ms = 0;
  /// A LoadOrder other than AllAtOnce: the deferred kernels, compiling, then loaded.
  std::future<backend::JitModule> pending;
  backend::JitModule rest;

  // Points the table's kernel slots at the loaded modules' entries (null
  // for a kernel not loaded yet).
  void point_kernels() {
    for (int i = 0; i < kKernelCount; ++i) {
      const auto id = static_cast<KernelId>(i);
      const loops::Function* f = kernels.get(id);
      void* entry = f ? module.find(f->name) : nullptr;
      if (f && !entry) entry = rest.find(f->name);
      *kernel_slot(table.model.kernels, id) = entry;
    }
  }
};

CompiledModel::CompiledModel() = default;
CompiledModel::~CompiledModel() = default;
CompiledModel::CompiledModel(CompiledModel&&) noexcept = default;
CompiledModel& CompiledModel::operator=(CompiledModel&&) noexcept = default;

const plastic_model& CompiledModel::table() const {
  return state_->table.model;
}
const ModelLayout& CompiledModel::layout() const {
  return state_->layout;
}
const ModelKernels& CompiledModel::kernels() const {
  return state_->kernels;
}
loops::PackedKernel CompiledModel::packed(KernelId id) const {
  const loops::Function* f = state_->kernels.get(id);
  return f ? state_->module.packed(f->name) : nullptr;
}
bool CompiledModel::all_loaded() const {
  return !state_->pending.valid();
}
void CompiledModel::wait_for_rest() {
  if (!state_->pending.valid()) return;
  state_->rest = state_->pending.get(); // rethrows, and is then no longer pending
  state_->point_kernels();
}
double CompiledModel::assemble_ms() const {
  return state_->assemble_ms;
}
const backend::CompileStats& CompiledModel::llvm_stats() const {
  return state_->module.stats();
}

namespace {

bool same_options(const backend::CompileOptions& a, const backend::CompileOptions& b) {
  return a.math == b.math && a.opt_level == b.opt_level && a.cpu == b.cpu &&
         a.features == b.features && a.contract == b.contract &&
         a.packed_entries == b.packed_entries && a.unroll_loops == b.unroll_loops;
}

} // namespace

// One LLJIT per set of options for the whole process: creating one costs
// milliseconds and target setup, and its modules are freed individually.
backend::Jit& shared_jit(const backend::CompileOptions& options) {
  static std::mutex mutex;
  static std::vector<std::unique_ptr<backend::Jit>> jits;
  std::lock_guard<std::mutex> lock(mutex);
  for (auto& j : jits)
    if (same_options(j->options(), options)) return *j;
  jits.push_back(std::make_unique<backend::Jit>(options));
  return *jits.back();
}

std::string jit_prefix(const std::string& name) {
  return name + "_";
}

CompiledModel CompiledModel::assemble(ModelLayout layout, ModelKernels kernels, JitModule module,
                                      double assemble_ms) {
  CompiledModel cm;
  cm.state_ = std::make_unique<CompiledModel::State>();
  CompiledModel::State& s = *cm.state_;
  s.layout = std::move(layout);
  s.kernels = std::move(kernels);
  s.module = std::move(module);
  s.assemble_ms = assemble_ms;
  const loops::ElemType type = s.kernels.type();
  fill_table(
      s.layout, s.kernels, type, s.kernels.lanes(type),
      [&](KernelId id) { return s.module.find(s.kernels.get(id)->name); }, s.table);
  return cm;
}

ModelKernels assemble_kernels(const model::ModelFunctions& fns, const ModelLayout& layout,
                              loops::ElemType type, int lanes, const std::string& prefix) {
  return build_kernels(fns, layout, type, lanes, prefix);
}

namespace {

// Whether predicting can do without the kernel until the background
// compilation delivers it: the kernels only training calls (the VJPs, the
// adjoint field), and the fused step kernels — the solvers step through the
// field kernel stage by stage without them (runtime/solvers/rk_stepper.cpp,
// the same Runge-Kutta method; only the rounding differs), and the field,
// output and loss kernels do not depend on the solver, so switching the
// solver (rk4 -> dopri5) finds them in the kernel cache and compiles
// nothing before the prompt returns. The fused steps are the largest
// kernels after step_vjp (dopri5's inlines seven stages of the field).
bool predict_can_wait(const ModelKernels& kernels, KernelId id) {
  const bool stages_through_field = kernels.get(KernelId::Field) != nullptr;
  return is_gradient_kernel(id) ||
         (stages_through_field && (id == KernelId::Step || id == KernelId::StepAdaptive));
}

// Whether a training step can do without the kernel until the background
// compilation delivers it: the unfused kernels the steppers fall back to
// when the fused one is missing (runtime/solvers/model_view.cpp) — the
// field behind a fused step, field_vjp behind the fused VJPs (and in a run
// that takes no gradient), the adjoint field behind adjoint_step. Deferring
// a kernel a step does call costs only its wait: the table the commands
// hand the runtime waits kernel by kernel (background_model.h).
bool first_step_can_wait(const ModelKernels& kernels, GradientUse use, KernelId id) {
  const auto has = [&](KernelId k) { return kernels.get(k) != nullptr; };
  // An adaptive solve calls the field for its first step size and FSAL
  // stage, a fixed-step one only the fused step.
  const bool fused_forward = has(KernelId::Step) && !has(KernelId::StepAdaptive);
  switch (id) {
  case KernelId::Field:
    return fused_forward;
  case KernelId::FieldVjp:
    return fused_forward &&
           (use == GradientUse::None || (use == GradientUse::Backprop && has(KernelId::StepVjp)) ||
            (use == GradientUse::Adjoint && has(KernelId::AdjointStep)));
  case KernelId::AdjointField: // the adaptive adjoint evaluates a first stage with it
    return fused_forward && has(KernelId::AdjointStep);
  default:
    return false;
  }
}

// The kernels of `kernels` that `order` loads first, and those that can
// wait, as two modules of the same name (a kernel's cached object does not
// depend on which half it was compiled in).
std::pair<loops::Module, loops::Module> split_by_order(const ModelKernels& kernels, LoadOrder order,
                                                       GradientUse use) {
  std::pair<loops::Module, loops::Module> out{{kernels.module.name, {}}, {kernels.module.name, {}}};
  for (int i = 0; i < kKernelCount; ++i) {
    const auto id = static_cast<KernelId>(i);
    const loops::Function* f = kernels.get(id);
    if (!f) continue;
    const bool can_wait = order == LoadOrder::PredictFirst ? predict_can_wait(kernels, id)
                                                           : first_step_can_wait(kernels, use, id);
    (can_wait ? out.second : out.first).functions.push_back(*f);
  }
  return out;
}

} // namespace

CompiledModel compile_model(const model::ModelFunctions& fns, loops::ElemType type, int lanes,
                            const backend::CompileOptions& options, LoadOrder order,
                            abi::GradientUse use) {
  auto t0 = std::chrono::steady_clock::now();
  ModelLayout layout = compute_layout(fns);
  ModelKernels kernels = build_kernels(fns, layout, type, lanes, jit_prefix(layout.name), use);
  const double assemble_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  backend::Jit& jit = shared_jit(options);
  if (order == LoadOrder::AllAtOnce) {
    JitModule all = jit.add(kernels.module);
    return CompiledModel::assemble(std::move(layout), std::move(kernels), std::move(all),
                                   assemble_ms);
  }
  auto [first, rest] = split_by_order(kernels, order, use);
  JitModule loaded = jit.add(first);
  CompiledModel cm = CompiledModel::assemble(std::move(layout), std::move(kernels),
                                             std::move(loaded), assemble_ms);
  if (!rest.functions.empty())
    cm.state_->pending = std::async(
        std::launch::async, [&jit, rest = std::move(rest)] { return jit.add_in_background(rest); });
  return cm;
}

} // namespace plastic::backend
