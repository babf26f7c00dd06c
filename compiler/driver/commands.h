// The `plastic` subcommands, one file each; main.cpp parses the command line.
//
// Exit codes are distinct per failure kind so scripts can tell them apart:
// 0 success, 1 the input has errors (a model, a data file), 2 the command line
// is wrong, 3 an internal error (a bug in Plastic).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "compiler/abi/gradient_use.h"
#include "runtime/app/app_error.h"
#include "runtime/app/data_flags.h"

namespace plastic::model {
struct ModelFunctions;
}

namespace plastic::driver {

// The exit codes are the runtime's (runtime/app/app_error.h), shared with
// model binaries.
using rt::ExitCode;
using rt::kInputError;
using rt::kInternalError;
using rt::kOk;
using rt::kUsageError;

/// Which backend compiles the kernels (--backend).
enum class Backend { Llvm, Cpp };

struct CommonOptions {
  std::map<std::string, double> overrides; ///< --set name=value
  /// `dim d from data.X`: what --data provides (train, eval, predict).
  std::map<std::string, int64_t> data_quantities;
  std::string data_name;
  bool color = false;              ///< colour diagnostics (a terminal)
  int error_limit = 20;            ///< --error-limit: errors shown per model file, 0 = all
  Backend backend = Backend::Llvm; ///< --backend llvm|cpp
  /// --memory-limit: refuse a model whose training step needs more (bytes);
  /// unset = the machine's available memory (memory_floor.h).
  std::optional<double> memory_limit;
  /// The command trains (train, bench-train): refuse before compiling a
  /// model whose smallest training step cannot fit.
  bool training_step = false;
  /// The gradient kernels the command calls (train, eval, predict,
  /// bench-train): the others are not compiled. Empty = those of the
  /// model's `gradient` line, resolved once the model is loaded.
  std::optional<abi::GradientUse> gradients = abi::GradientUse::All;
  /// Samples per tile: a run's recorded count (eval, predict, --resume
  /// compile as the run did); 0 = chosen for this machine (tile_lanes).
  int lanes = 0;
};

/// `plastic check FILE…`: check models and print a summary of each.
int run_check(const std::vector<std::string>& files, bool json, const CommonOptions& common);

/// `plastic emit --ast|--ir|--grad-ir|--step-ir|--stats FILE`: print a stage of the compilation.
int run_emit(const std::string& file, const std::string& stage, const CommonOptions& common,
             bool print_after_all = false);

/// `plastic gradcheck FILE…`: symbolic VJPs against finite differences.
int run_gradcheck(const std::vector<std::string>& files, double tolerance, uint64_t seed,
                  const CommonOptions& common);

/// Every VJP of a loaded model against finite differences, one line per
/// function on `out`; true when the worst relative error is within `tolerance`.
bool gradcheck_model(const model::ModelFunctions& fns, double tolerance, uint64_t seed,
                     std::ostream& out);

/// `plastic emit --loops|--llvm [--opt]|--cpp|--cpp-header FILE`: the ABI
/// kernels as loop IR, LLVM IR, or C++ source / header.
int run_emit_kernels(const std::string& file, const std::string& stage, bool optimized,
                     const std::string& dtype, const CommonOptions& common);

/// What `plastic build` is asked for (build_command.cpp).
struct BuildRequest {
  std::string file;      ///< the model (*.ode)
  std::string out;       ///< the executable; with --emit-obj/--emit-lib the path without extension
  bool emit_obj = false; ///< OUT.o (kernels + model table) and OUT.h
  bool emit_lib = false; ///< libOUT.a and OUT.h, for embedding
  std::string dtype = "f32"; ///< f32 | f64, as `plastic train`
  bool dtype_given = false;  ///< --dtype was given (else --run's element type)
  int lanes = 0;             ///< samples per tile; 0 = the widest vector of the target
  std::string target;        ///< target CPU ("x86-64-v3", "znver4"); "" or "native" = this machine
  /// --data (and how to read it): the data the binary will read, for the
  /// dims the model takes from the data (`dim d from data.channels`), which
  /// a binary freezes.
  std::string data;
  rt::DataFlags data_flags; ///< its column flags (--target-column: --target is the CPU here)
  /// --run: a run folder whose binding (--set values, dtype, dims from its
  /// data) the binary takes.
  std::string run;
};

/// `plastic build FILE -o OUT`: a standalone model binary (the model's object
/// linked with the runtime by the system C++ compiler), or with --emit-obj
/// OUT.o (kernels + model table) and OUT.h.
int run_build(const BuildRequest& request, const CommonOptions& common);

/// `plastic bench-kernels FILE`: time and GFLOP/s of every kernel on random data.
int run_bench_kernels(const std::string& file, const std::string& dtype, double min_seconds,
                      const CommonOptions& common);

/// What `plastic analyze stability` is asked for (analyze_command.cpp).
struct AnalyzeRequest {
  std::string file;
  std::string parameters;    ///< a run folder or .safetensors; empty = at initialisation
  std::string data;          ///< --data SPEC: states along its training samples; empty = the origin
  rt::DataFlags data_flags;  ///< how to read a .csv or .npy folder, as `plastic train`
  std::string dtype = "f32"; ///< the element type the parameters were trained in
  std::string plot;          ///< --plot FILE.png
  bool json = false;
  int64_t samples = 4; ///< samples followed with --data
  uint64_t seed = 0;   ///< initialisation and data split, as `plastic train --seed`
  // fixed-points and flow
  double input = 0;             ///< --input: the value every input is held at
  int64_t starts = 100;         ///< --starts: starts of the fixed-point finder
  double tolerance = 1e-8;      ///< --tolerance: ‖f‖ of a fixed point
  double slow_tolerance = 1e-2; ///< --slow-tolerance: ‖f‖ of a slow point
  double marginal = 1e-3;       ///< --marginal: |Re λ| / max |λ| counted as zero
  int64_t grid = 21;            ///< --grid: arrows per side of the flow plot
};

/// `plastic analyze stability FILE`: the Jacobian spectrum of the field
/// against the solver's stability region (compiler/analysis/stability.h).
int run_analyze_stability(const AnalyzeRequest& request, const CommonOptions& common);

/// `plastic analyze fixed-points FILE`: fixed and slow points of the field
/// with its inputs held constant, classified by their Jacobian spectra
/// (compiler/analysis/fixed_points.h).
int run_analyze_fixed_points(const AnalyzeRequest& request, const CommonOptions& common);

/// `plastic analyze flow FILE --plot FILE.png`: the flow field in the plane
/// of the trajectories' two leading principal components, with the
/// trajectories and fixed points (compiler/analysis/flow.h).
int run_analyze_flow(const AnalyzeRequest& request, const CommonOptions& common);

/// Expands directories into the `*.ode` files below them (sorted).
std::vector<std::string> expand_model_paths(const std::vector<std::string>& paths);

} // namespace plastic::driver
