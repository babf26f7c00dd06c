// Compile a model and run a runtime command on it (see run_compiled.h).
#include "compiler/driver/run_compiled.h"

#include "compiler/analysis/nonfinite_locator.h"
#include "compiler/analysis/stability.h"
#include "compiler/backend/background_model.h"
#include "compiler/backend/compiled_model.h"
#include "compiler/backend/llvm/options.h"
#include "compiler/driver/backend_choice.h"
#include "compiler/driver/load_model.h"
#include "compiler/driver/memory_floor.h"
#include "compiler/loops/elem_type.h"
#include "compiler/loops/error.h"
#include "dsl/ast_printer.h"
#include "runtime/app/kernels_ready.h"
#include "runtime/distributed/communicator.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

namespace plastic::driver {

// Samples per tile. PLASTIC_LANES sets it: a number, or "native" for the
// widest register of this machine. Otherwise the widest register (16 x f32
// with AVX-512: 1.3x faster per sample than one 256-bit vector on the Delta
// CDE) unless its fewer, wider tiles leave threads idle that 256-bit tiles
// would keep busy: the README's batch of 10 on two cores is one 16-lane tile
// on one core (11.7 s) or two 8-lane tiles on two (9.9 s). Both widths are
// checked against the interpreter (tests/compiler/abi/kernels_test.cpp).
// The cores counted are the machine's, not --threads: the lane count decides
// which samples share a tile's time grid and the order of its sums, so a
// count that followed --threads made f64 training differ with --threads
// (1e-8 at the first step on series of mixed lengths); now it differs only
// between machines, and the model line prints it.
int tile_lanes(loops::ElemType type, int64_t batch) {
  if (const char* env = std::getenv("PLASTIC_LANES"))
    return std::string(env) == "native" ? backend::target_lanes(type) : std::atoi(env);
  const int narrow = loops::default_lanes(type), wide = backend::target_lanes(type);
  if (batch <= 0 || wide <= narrow) return 0;
  const int64_t workers = std::max(1u, std::thread::hardware_concurrency());
  auto tiles = [&](int lanes) { return (batch + lanes - 1) / lanes; };
  return tiles(wide) >= std::min(workers, tiles(narrow)) ? wide : 0;
}

// The run's recorded lane count when there is one (eval, predict, resume),
// unless PLASTIC_LANES says otherwise; else the machine's choice.
namespace {
int lanes_for(const CommonOptions& common, loops::ElemType type, int64_t batch) {
  if (common.lanes > 0 && !std::getenv("PLASTIC_LANES")) return common.lanes;
  return tile_lanes(type, batch);
}

// Where the kernels came from, and how many still compile behind the
// first step (LoadOrder::FirstStepFirst), as " (a, b)" or nothing.
std::string compile_origin(Backend backend, const backend::CompileStats& stats, int deferred) {
  std::vector<std::string> parts;
  if (backend == Backend::Cpp) parts.emplace_back("C++ backend");
  if (stats.cached > 0 && stats.cached == stats.kernels)
    parts.emplace_back("kernels from the cache");
  else if (stats.cached > 0)
    parts.push_back(fmt::format("{} of {} kernels from the cache", stats.cached, stats.kernels));
  if (deferred > 0)
    parts.push_back(
        fmt::format("{} more kernel{} in the background", deferred, deferred == 1 ? "" : "s"));
  if (parts.empty()) return "";
  return fmt::format(" ({})", fmt::join(parts, ", "));
}
} // namespace

// The gradient kernels of a model's own `gradient` line.
abi::GradientUse gradient_use(dsl::GradientMethod line) {
  switch (line) {
  case dsl::GradientMethod::Direct:
  case dsl::GradientMethod::Checkpoint:
    return abi::GradientUse::Backprop;
  case dsl::GradientMethod::Adjoint:
    return abi::GradientUse::Adjoint;
  case dsl::GradientMethod::Auto:
    break;
  }
  return abi::GradientUse::All; // auto decides after compiling
}

int run_compiled(const std::string& file, const std::string& dtype, const CommonOptions& common,
                 const std::function<int(const plastic_model&, const nlohmann::json& dims,
                                         const rt::ModelSource& source)>& body,
                 int64_t batch, int threads) {
  int code = kOk;
  auto fns = load_model(file, common, code);
  if (!fns) return code;
  if (common.training_step) {
    // Before compiling: a model that cannot take one training step here is refused in milliseconds.
    dsl::DiagnosticEngine diag;
    StepSetting setting{dtype, batch > 0 ? batch : 32, threads, 0, 1};
    dsl::CheckOptions options{common.overrides, common.data_quantities, common.data_name};
    if (!check_memory_floor(*fns->model, memory_setting(setting), common.memory_limit, diag, file,
                            options)) {
      diag.render(std::cerr, common.color);
      return kInputError;
    }
  }
  nlohmann::json dims = nlohmann::json::object();
  for (const auto& d : fns->model->dims) {
    dims[d.name] = d.value;
    if (!d.from_data.empty() && !d.overridden && rt::world().root())
      std::cerr << fmt::format("dim       {} = {} (from the data: {} {})\n", d.name, d.value,
                               d.value, d.from_data);
  }
  // The model as the user wrote it (the checker's modules are the prelude,
  // then the model file, then generated layers).
  rt::ModelSource source;
  source.file = file;
  source.sets = common.overrides;
  if (fns->model->modules.size() > 1) {
    const dsl::Module& module = *fns->model->modules[1];
    source.text = module.source ? module.source->text() : std::string();
    source.canonical = dsl::print_module(module);
    // A plain dim: declared with a number (or from the data), so `--set` of
    // it alone changes the input's size. A derived one (`dim d_in = 1 +
    // groups * d_feat`) is set through the dims it is made of: naming it in
    // the advice sent people round in circles (issue 19).
    auto is_dim = [&](const std::string& name) {
      for (const dsl::Decl& decl : module.decls)
        if (const auto* dim = std::get_if<dsl::DimDecl>(&decl); dim && dim->name.name == name)
          return !dim->is_const &&
                 (dim->from_data || !dim->value || dim->value->kind == dsl::ExprKind::Number);
      return false;
    };
    for (const dsl::Decl& decl : module.decls) {
      const auto* in = std::get_if<dsl::InputDecl>(&decl);
      if (!in || in->sizes.size() != 1 || in->sizes[0]->kind != dsl::ExprKind::Name ||
          !is_dim(in->sizes[0]->text))
        continue;
      if (in->kind == dsl::InputKind::Path && source.path_dim.empty())
        source.path_dim = in->sizes[0]->text;
      if (in->kind == dsl::InputKind::Label) source.classes_dim = in->sizes[0]->text;
    }
  }
  // The kernels compile on other threads while the command reads and
  // prepares its data; it waits for them before its first kernel call
  // (runtime/app/kernels_ready.h), and this line then says what they cost.
  const loops::ElemType type = loops::elem_type(dtype);
  const int lanes = lanes_for(common, type, batch);
  const abi::GradientUse use =
      common.backend == Backend::Cpp
          ? abi::GradientUse::All // the C++ backend compiles every kernel
          : common.gradients.value_or(gradient_use(fns->model->gradient.method));
  std::optional<backend::BackgroundModel> compiling;
  try {
    compiling.emplace(*fns, type, lanes, use, [&] {
      return compile_with(common.backend, *fns, type, lanes, {}, use,
                          backend::LoadOrder::FirstStepFirst);
    });
  } catch (const abi::LayoutError& e) {
    std::cerr << fmt::format("plastic: {}: {}\n", file, e.what());
    return kInputError;
  }
  const plastic_model& m = compiling->table();
  if (rt::world().root()) // under mpirun: once per job, not once per rank
    std::cerr << fmt::format("model     {} ({}), {} parameters, state {}, {} x {} lanes\n", m.name,
                             file, m.n_params, m.n_state, dtype, m.lanes);
  rt::KernelsReadyScope ready([&, reported = false]() mutable -> Status<rt::AppError> {
    try {
      const backend::CompileStats& stats = compiling->wait();
      if (!reported && rt::world().root())
        std::cerr << fmt::format("kernels   compiled in {:.2f} s beside the data{}\n",
                                 compiling->seconds(),
                                 compile_origin(common.backend, stats, compiling->deferred()));
      reported = true;
      return {};
    } catch (const loops::CodegenError& e) {
      return rt::AppError{kInputError, fmt::format("{}: {}", file, e.what())};
    } catch (const std::exception& e) {
      return rt::AppError{kInternalError,
                          fmt::format("internal error (a bug): compiling {}: {}", file, e.what())};
    }
  });
  // A NaN met while running is traced back to the model's source line.
  rt::NonFiniteExplainerScope explain(analysis::make_nonfinite_explainer(*fns, common.color));
  // `plastic train` prints one line of the stability report at initialisation.
  rt::StabilityReporterScope stability(analysis::make_stability_reporter(*fns, file));
  return body(m, dims, source);
}

} // namespace plastic::driver
