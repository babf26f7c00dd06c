// `plastic`: the command-line driver.
//
// Parses the command line with CLI11 and dispatches to one subcommand
// (commands.h). Every exception that escapes a subcommand is a bug and is
// reported as one, with its own exit code.
#include "compiler/driver/backend_choice.h"
#include "compiler/driver/commands.h"
#include "compiler/driver/model_commands.h"
#include "compiler/driver/repl/repl.h"
#include "compiler/driver/tune/tune_command.h"
#include "dsl/diagnostics.h"
#include "runtime/app/allocator.h"
#include "runtime/app/cli_options.h"
#include "runtime/app/option_checks.h"
#include "runtime/app/parse_errors.h"
#include "runtime/app/standard_output.h"
#include "runtime/distributed/communicator.h"
#include "runtime/gradients/memory_estimate.h"
#include "runtime/support/internal_error.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <unistd.h>

using namespace plastic::driver;

static bool parse_overrides(const std::vector<std::string>& sets, CommonOptions& common) {
  for (const std::string& s : sets) {
    auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) {
      std::cerr << fmt::format("plastic: --set expects name=value, got '{}'\n", s);
      return false;
    }
    std::string name = s.substr(0, eq), value = s.substr(eq + 1);
    char* end = nullptr;
    double v = std::strtod(value.c_str(), &end);
    if (end == value.c_str() || *end != '\0' || !std::isfinite(v)) {
      std::cerr << fmt::format("plastic: --set {}: '{}' is not a finite number\n", name, value);
      return false;
    }
    // A second value for one name is refused, as a repeated --batch is:
    // taking the last silently hides a typo in a long command line.
    if (auto [it, inserted] = common.overrides.emplace(name, v); !inserted) {
      std::cerr << fmt::format("plastic: --set {} given twice ({} and {}); give it once\n", name,
                               it->second, v);
      return false;
    }
  }
  return true;
}

static int run(int argc, char** argv) {
  // Line-buffered even into a file or a pipe: a long training run piped
  // through tee shows each epoch as it ends.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  plastic::rt::keep_freed_memory();
  CLI::App app{"Plastic: a compiler for neural differential equations whose vector fields are "
               "learning rules.\n"
               "Exit codes: 0 ok, 1 errors in the input, 2 usage error, 3 internal error (a bug)."};
  app.set_version_flag("--version", std::string("plastic ") + PLASTIC_VERSION);
  app.require_subcommand(1);

  std::vector<std::string> sets;
  int error_limit = plastic::dsl::DiagnosticEngine::kDefaultErrorLimit;
  auto add_error_limit = [&](CLI::App* cmd) {
    cmd->add_option("--error-limit", error_limit,
                    "Errors shown per model file (default 20, 0 = all)")
        ->check(plastic::rt::integer_in(0, 1'000'000));
  };
  auto add_set = [&](CLI::App* cmd) {
    cmd->add_option("--set", sets, "Override a dim or const: --set d_head=32 (repeatable)");
    add_error_limit(cmd);
  };

  std::vector<std::string> check_files;
  bool json = false;
  CLI::App* check = app.add_subcommand("check", "Check models and print a summary of each");
  check->add_option("files", check_files, "Model files (*.ode) or folders of them")->required();
  check->add_flag("--json", json, "Print the summaries as JSON");
  std::optional<double> check_memory_limit;
  plastic::rt::add_size_option(
      *check, "--memory-limit", check_memory_limit,
      "Refuse a model whose training step needs more, e.g. 4GB (default: the available memory)");
  add_set(check);

  std::string emit_file;
  bool emit_ast = false, emit_ir = false, emit_grad = false, emit_step = false, emit_stats = false;
  bool print_after_all = false;
  bool emit_loops = false, emit_llvm = false, emit_opt = false, emit_cpp = false,
       emit_cpp_header = false;
  std::string emit_dtype = "f64";
  CLI::App* emit = app.add_subcommand("emit", "Print one stage of the compilation");
  emit->add_option("file", emit_file, "Model file (*.ode)")->required();
  emit->add_flag("--ast", emit_ast, "The parsed model, printed back as source");
  emit->add_flag("--ir", emit_ir,
                 "The model's IR functions: field, initial state, outputs, jump, loss");
  emit->add_flag("--grad-ir", emit_grad, "Their VJPs and the continuous adjoint system");
  emit->add_flag("--step-ir", emit_step,
                 "The fused step of the model's solver (and dopri5) and its VJP");
  emit->add_flag("--stats", emit_stats, "Node counts per function");
  emit->add_flag("--print-after-all", print_after_all,
                 "Print every function after every optimisation pass");
  emit->add_flag("--loops", emit_loops, "The model's ABI kernels as loop IR");
  emit->add_flag("--llvm", emit_llvm,
                 "The model's ABI kernels as LLVM IR (unoptimised unless --opt)");
  emit->add_flag("--opt", emit_opt, "With --llvm: after the O3 pipeline");
  emit->add_flag("--cpp", emit_cpp, "The model's ABI kernels and table as C++ (formatted)");
  emit->add_flag("--cpp-header", emit_cpp_header, "The C header of --cpp's source");
  plastic::rt::add_dtype_option(*emit, emit_dtype, "--loops/--llvm/--cpp kernels (default f64)");
  add_set(emit);

  BuildRequest build_request;
  CLI::App* build =
      app.add_subcommand("build", "Compile a model ahead of time into a standalone binary");
  build->add_option("file", build_request.file, "Model file (*.ode)")->required();
  build->add_option("-o", build_request.out,
                    "The model binary; with --emit-obj/--emit-lib the path without extension "
                    "(required unless --target help)");
  build->add_flag("--emit-obj", build_request.emit_obj,
                  "Write OUT.o exporting the kernels and the model table, and its header OUT.h");
  build->add_flag("--emit-lib", build_request.emit_lib,
                  "Write the static library libOUT.a and its header OUT.h");
  CLI::Option* build_dtype = plastic::rt::add_dtype_option(
      *build, build_request.dtype, "the kernels (default f32, as train; with --run, the run's)");
  build
      ->add_option("--lanes", build_request.lanes,
                   "Samples per SIMD tile (default: the target's widest vector)")
      ->check(CLI::Range(1, 64));
  build->add_option(
      "--target", build_request.target,
      "Target CPU: native (default), x86-64-v3, x86-64-v4, znver4, ... (LLVM's CPU names)");
  build->add_option("--data", build_request.data,
                    "The data the binary will read: the dims the model takes from the data "
                    "(`dim d from data.channels`) are frozen at theirs");
  build->add_option("--run", build_request.run,
                    "A run folder of `plastic train`: the binary of that run (its --set values, "
                    "element type and the dims it took from its data)");
  plastic::rt::add_data_flags(*build, build_request.data_flags, "--target-column");
  add_set(build);
  std::string backend_name = "llvm"; // build and bench-kernels (one subcommand runs)
  add_backend_option(*build, backend_name);

  std::string bench_file, bench_dtype = "f32";
  double bench_seconds = 0.2;
  CLI::App* bench =
      app.add_subcommand("bench-kernels", "Time every kernel of a model on random data");
  bench->add_option("file", bench_file, "Model file (*.ode)")->required();
  plastic::rt::add_dtype_option(*bench, bench_dtype, "the kernels (default f32)");
  bench->add_option("--seconds", bench_seconds,
                    "Least time spent timing each kernel (default 0.2)");
  add_set(bench);
  add_backend_option(*bench, backend_name);

  ModelCommands model_commands(app, sets, add_error_limit);
  TuneCommand tune(app, add_set);

  std::vector<std::string> gradcheck_files;
  double tolerance = 1e-6;
  uint64_t seed = 1;
  CLI::App* gradcheck =
      app.add_subcommand("gradcheck", "Check every symbolic VJP against finite differences");
  gradcheck->add_option("files", gradcheck_files, "Model files (*.ode) or folders of them")
      ->required();
  gradcheck->add_option("--tolerance", tolerance, "Largest relative error accepted (default 1e-6)");
  gradcheck->add_option("--seed", seed, "Seed of the random points (default 1)");
  add_set(gradcheck);

  AnalyzeRequest analyze_request;
  CLI::App* analyze =
      app.add_subcommand("analyze", "Questions about a model: stability, fixed points, flow field");
  analyze->require_subcommand(1);
  CLI::App* stability = analyze->add_subcommand(
      "stability", "Jacobian eigenvalues of the field against the solver's stability region");
  stability->add_option("file", analyze_request.file, "Model file (*.ode)")->required();
  stability->add_option("--parameters", analyze_request.parameters,
                        "Trained parameters (a run folder); default: at initialisation");
  stability->add_option("--data", analyze_request.data,
                        "States along trajectories of this data's training samples (any --data "
                        "spec of train); default: the origin z = 0");
  stability->add_option("--samples", analyze_request.samples,
                        "Training samples followed with --data (default 4)");
  plastic::rt::add_dtype_option(*stability, analyze_request.dtype,
                                "the trained parameters (default f32)");
  stability->add_option("--seed", analyze_request.seed,
                        "Initialisation and split seed (default 0)");
  stability->add_flag("--json", analyze_request.json, "The report as JSON on stdout");
  stability->add_option("--plot", analyze_request.plot,
                        "Draw the region and the h*lambda points to FILE.png (gnuplot)");
  plastic::rt::add_data_flags(*stability, analyze_request.data_flags);
  add_set(stability);

  // fixed-points and flow share the finder's options.
  auto add_finder_options = [&](CLI::App* sub) {
    sub->add_option("file", analyze_request.file, "Model file (*.ode)")->required();
    sub->add_option("--parameters", analyze_request.parameters,
                    "Trained parameters (a run folder); default: at initialisation");
    sub->add_option("--input", analyze_request.input,
                    "The value every input is held at (default 0: no pulse)");
    sub->add_option("--data", analyze_request.data,
                    "Start from states along trajectories of this data's training samples (any "
                    "--data spec of train); default: the origin and random states");
    sub->add_option("--samples", analyze_request.samples,
                    "Training samples (or random trajectories) followed (default 4)");
    sub->add_option("--starts", analyze_request.starts,
                    "Starts of the fixed-point finder (default 100)");
    sub->add_option("--tolerance", analyze_request.tolerance,
                    "|f| at or below which a point is fixed (default 1e-8)");
    sub->add_option("--slow-tolerance", analyze_request.slow_tolerance,
                    "|f| at or below which a local minimum of |f|^2 is a slow point (default "
                    "0.01, paper 003 App. F.4)");
    sub->add_option("--marginal", analyze_request.marginal,
                    "|Re lambda| / max |lambda| below which an eigenvalue counts as zero "
                    "(default 1e-3)");
    plastic::rt::add_dtype_option(*sub, analyze_request.dtype,
                                  "the trained parameters (default f32)");
    sub->add_option("--seed", analyze_request.seed,
                    "Initialisation, random-start and split seed (default 0)");
    plastic::rt::add_data_flags(*sub, analyze_request.data_flags);
    add_set(sub);
  };
  CLI::App* fixed_points = analyze->add_subcommand(
      "fixed-points", "Fixed and slow points of the field with its inputs held constant, "
                      "classified by their Jacobian spectra");
  add_finder_options(fixed_points);
  fixed_points->add_flag("--json", analyze_request.json, "The points as JSON on stdout");
  CLI::App* flow = analyze->add_subcommand(
      "flow", "The flow field in the plane of the trajectories' two leading principal "
              "components, with the fixed points, as a PNG");
  add_finder_options(flow);
  flow->add_option("--plot", analyze_request.plot, "The PNG to draw (gnuplot)")->required();
  flow->add_option("--grid", analyze_request.grid, "Arrows per side (default 21)");

  ReplRequest repl_request;
  CLI::App* repl = app.add_subcommand(
      "repl", "An interactive session: load, change, recompile, train, inspect (or --script)");
  repl->add_option("file", repl_request.file,
                   "Model file (*.ode) to load first, or a trained run folder to open");
  repl->add_option("--data", repl_request.data, "Data to use (any --data spec of train)");
  repl->add_option("--script", repl_request.script,
                   "Run the commands of FILE (- = stdin) and stop at the first error");
  plastic::rt::add_dtype_option(*repl, repl_request.dtype, "the kernels (default f32)");
  add_set(repl);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return plastic::rt::report_parse_error(app, e, "plastic");
  }

  CommonOptions common;
  common.color = isatty(STDERR_FILENO) && !std::getenv("NO_COLOR");
  common.error_limit = error_limit;
  if (!parse_overrides(sets, common)) return kUsageError;
  common.backend = parse_backend(backend_name);
  common.memory_limit = check_memory_limit;

  try {
    if (check->parsed()) return run_check(check_files, json, common);
    if (emit->parsed()) {
      int chosen = emit_ast + emit_ir + emit_grad + emit_step + emit_stats + emit_loops +
                   emit_llvm + emit_cpp + emit_cpp_header;
      if (chosen != 1) {
        std::cerr << "plastic emit: choose one stage: --ast, --ir, --grad-ir, --step-ir, --stats, "
                     "--loops, --llvm, --cpp or --cpp-header\n";
        return kUsageError;
      }
      if (emit_loops || emit_llvm || emit_cpp || emit_cpp_header)
        return run_emit_kernels(emit_file,
                                emit_loops  ? "loops"
                                : emit_llvm ? "llvm"
                                : emit_cpp  ? "cpp"
                                            : "cpp-header",
                                emit_opt, emit_dtype, common);
      std::string stage = emit_ast    ? "ast"
                          : emit_ir   ? "ir"
                          : emit_grad ? "grad-ir"
                          : emit_step ? "step-ir"
                                      : "stats";
      return run_emit(emit_file, stage, common, print_after_all);
    }
    if (repl->parsed()) return run_repl(repl_request, common);
    if (stability->parsed()) return run_analyze_stability(analyze_request, common);
    if (fixed_points->parsed()) return run_analyze_fixed_points(analyze_request, common);
    if (flow->parsed()) return run_analyze_flow(analyze_request, common);
    if (gradcheck->parsed()) return run_gradcheck(gradcheck_files, tolerance, seed, common);
    if (build->parsed()) {
      build_request.dtype_given = build_dtype->count() > 0;
      return run_build(build_request, common);
    }
    if (bench->parsed()) return run_bench_kernels(bench_file, bench_dtype, bench_seconds, common);
    if (auto code = model_commands.run(common)) return *code;
    if (auto code = tune.run(common)) return *code;
  } catch (const plastic::InternalError& e) {
    std::cerr << "plastic: " << e.what() << "\n";
    return kInternalError;
  } catch (const std::exception& e) {
    if (auto code = plastic::rt::output_failure_code(e, "plastic")) return *code;
    // Any other exception escaping a command is a bug too: commands report
    // the user's errors themselves and return their exit code.
    std::cerr << "plastic: " << plastic::InternalError(e.what()).what() << "\n";
    return kInternalError;
  }
  return kUsageError;
}

int main(int argc, char** argv) {
  // Under mpirun: one rank of a data-parallel job (runtime/distributed).
  if (std::string refused = plastic::rt::init_distributed(argc, argv); !refused.empty()) {
    std::cerr << "plastic: " << refused << "\n";
    return kUsageError;
  }
  try {
    return plastic::rt::finish_distributed(
        plastic::rt::finish_standard_output(run(argc, argv), "plastic"));
  } catch (const std::exception& e) {
    // Setting up the command line failed (run catches what commands throw).
    std::cerr << "plastic: " << plastic::InternalError(e.what()).what() << "\n";
    return kInternalError;
  }
}
