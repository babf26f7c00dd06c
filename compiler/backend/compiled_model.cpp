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
  const std::vector<loops::Function>& fns = s.kernels.module.functions;
  const loops::ElemType type = fns.empty() ? loops::ElemType::F64 : fns[0].type;
  const int lanes = fns.empty() ? loops::default_lanes(type) : fns[0].lanes;
  fill_table(
      s.layout, s.kernels, type, lanes,
      [&](KernelId id) { return s.module.address(s.kernels.get(id)->name); }, s.table);
  return cm;
}

ModelKernels assemble_kernels(const model::ModelFunctions& fns, const ModelLayout& layout,
                              loops::ElemType type, int lanes, const std::string& prefix) {
  return build_kernels(fns, layout, type, lanes, prefix);
}

CompiledModel compile_model(const model::ModelFunctions& fns, loops::ElemType type, int lanes,
                            const backend::CompileOptions& options) {
  auto t0 = std::chrono::steady_clock::now();
  ModelLayout layout = compute_layout(fns);
  ModelKernels kernels = build_kernels(fns, layout, type, lanes, jit_prefix(layout.name));
  const double assemble_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  JitModule module = shared_jit(options).add(kernels.module);
  return CompiledModel::assemble(std::move(layout), std::move(kernels), std::move(module),
                                 assemble_ms);
}

} // namespace plastic::backend
