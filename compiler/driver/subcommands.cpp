// The driver's subcommands on the command line (see subcommands.h). Each
// add_* function declares one subcommand: its options bound to a state
// that the returned closure owns, and the call that runs it.
#include "compiler/driver/subcommands.h"

#include <memory>

#include "compiler/driver/backend_choice.h"
#include "compiler/driver/cli_reference.h"
#include "compiler/driver/lsp/server.h"
#include "compiler/driver/repl/repl.h"
#include "runtime/app/cli_options.h"
#include "runtime/app/option_checks.h"

namespace plastic::driver {

void SharedFlags::add_error_limit(CLI::App* cmd) {
  cmd->add_option("--error-limit", error_limit, "Errors shown per model file (default 20, 0 = all)")
      ->check(rt::integer_in(0, 1'000'000));
}

void SharedFlags::add_set(CLI::App* cmd) {
  cmd->add_option("--set", sets, "Override a dim or const: --set d_head=32 (repeatable)");
  add_error_limit(cmd);
}

namespace {

Subcommand add_check(CLI::App& app, SharedFlags& flags) {
  struct State {
    std::vector<std::string> files;
    bool json = false;
  };
  auto s = std::make_shared<State>();
  CLI::App* cmd = app.add_subcommand("check", "Check models and print a summary of each");
  cmd->add_option("files", s->files, "Model files (*.ode) or folders of them")->required();
  cmd->add_flag("--json", s->json, "Print the summaries as JSON");
  rt::add_size_option(
      *cmd, "--memory-limit", flags.memory_limit,
      "Refuse a model whose training step needs more, e.g. 4GB (default: the available memory)");
  flags.add_set(cmd);
  return {cmd, [s](const CommonOptions& common) { return run_check(s->files, s->json, common); }};
}

/// emit's stage flags: exactly one is given.
struct EmitStages {
  bool ast = false, ir = false, grad = false, step = false, stats = false;
  bool loops = false, llvm = false, cpp = false, cpp_header = false;
  int chosen() const { return ast + ir + grad + step + stats + loops + llvm + cpp + cpp_header; }
  /// The kernels' form (loops, llvm, cpp, cpp-header), or "" for a model stage.
  std::string kernels() const {
    return loops ? "loops" : llvm ? "llvm" : cpp ? "cpp" : cpp_header ? "cpp-header" : "";
  }
  std::string model_stage() const {
    return ast ? "ast" : ir ? "ir" : grad ? "grad-ir" : step ? "step-ir" : "stats";
  }
};

int run_emit_stage(const std::string& file, const EmitStages& stage, bool optimised,
                   bool print_after_all, const std::string& dtype, const CommonOptions& common) {
  if (stage.chosen() != 1) {
    std::cerr << "plastic emit: choose one stage: --ast, --ir, --grad-ir, --step-ir, --stats, "
                 "--loops, --llvm, --cpp or --cpp-header\n";
    return kUsageError;
  }
  if (std::string kernels = stage.kernels(); !kernels.empty())
    return run_emit_kernels(file, kernels, optimised, dtype, common);
  return run_emit(file, stage.model_stage(), common, print_after_all);
}

Subcommand add_emit(CLI::App& app, SharedFlags& flags) {
  struct State {
    std::string file, dtype = "f64";
    EmitStages stage;
    bool print_after_all = false, optimised = false;
  };
  auto s = std::make_shared<State>();
  EmitStages& st = s->stage;
  CLI::App* cmd = app.add_subcommand("emit", "Print one stage of the compilation");
  cmd->add_option("file", s->file, "Model file (*.ode)")->required();
  cmd->add_flag("--ast", st.ast, "The parsed model, printed back as source");
  cmd->add_flag("--ir", st.ir,
                "The model's IR functions: field, initial state, outputs, jump, loss");
  cmd->add_flag("--grad-ir", st.grad, "Their VJPs and the continuous adjoint system");
  cmd->add_flag("--step-ir", st.step,
                "The fused step of the model's solver (and dopri5) and its VJP");
  cmd->add_flag("--stats", st.stats, "Node counts per function");
  cmd->add_flag("--print-after-all", s->print_after_all,
                "Print every function after every optimisation pass");
  cmd->add_flag("--loops", st.loops, "The model's ABI kernels as loop IR");
  cmd->add_flag("--llvm", st.llvm, "The model's ABI kernels as LLVM IR (unoptimised unless --opt)");
  cmd->add_flag("--opt", s->optimised, "With --llvm: after the O3 pipeline");
  cmd->add_flag("--cpp", st.cpp, "The model's ABI kernels and table as C++ (formatted)");
  cmd->add_flag("--cpp-header", st.cpp_header, "The C header of --cpp's source");
  rt::add_dtype_option(*cmd, s->dtype, "--loops/--llvm/--cpp kernels (default f64)");
  flags.add_set(cmd);
  return {cmd, [s](const CommonOptions& common) {
            return run_emit_stage(s->file, s->stage, s->optimised, s->print_after_all, s->dtype,
                                  common);
          }};
}

Subcommand add_build(CLI::App& app, SharedFlags& flags) {
  auto r = std::make_shared<BuildRequest>();
  CLI::App* cmd =
      app.add_subcommand("build", "Compile a model ahead of time into a standalone binary");
  cmd->add_option("file", r->file, "Model file (*.ode)")->required();
  cmd->add_option("-o", r->out,
                  "The model binary; with --emit-obj/--emit-lib the path without extension "
                  "(required unless --target help)");
  cmd->add_flag("--emit-obj", r->emit_obj,
                "Write OUT.o exporting the kernels and the model table, and its header OUT.h");
  cmd->add_flag("--emit-lib", r->emit_lib,
                "Write the static library libOUT.a and its header OUT.h");
  CLI::Option* dtype = rt::add_dtype_option(
      *cmd, r->dtype, "the kernels (default f32, as train; with --run, the run's)");
  cmd->add_option("--lanes", r->lanes,
                  "Samples per SIMD tile (default: the target's widest vector)")
      ->check(CLI::Range(1, 64));
  cmd->add_option(
      "--target", r->target,
      "Target CPU: native (default), x86-64-v3, x86-64-v4, znver4, ... (LLVM's CPU names)");
  cmd->add_option("--data", r->data,
                  "The data the binary will read: the dims the model takes from the data "
                  "(`dim d from data.channels`) are frozen at theirs");
  cmd->add_option("--run", r->run,
                  "A run folder of `plastic train`: the binary of that run (its --set values, "
                  "element type and the dims it took from its data)");
  rt::add_data_flags(*cmd, r->data_flags, "--target-column");
  flags.add_set(cmd);
  add_backend_option(*cmd, flags.backend);
  return {cmd, [r, dtype](const CommonOptions& common) {
            r->dtype_given = dtype->count() > 0;
            return run_build(*r, common);
          }};
}

Subcommand add_bench_kernels(CLI::App& app, SharedFlags& flags) {
  struct State {
    std::string file, dtype = "f32";
    double seconds = 0.2;
  };
  auto s = std::make_shared<State>();
  CLI::App* cmd =
      app.add_subcommand("bench-kernels", "Time every kernel of a model on random data");
  cmd->add_option("file", s->file, "Model file (*.ode)")->required();
  rt::add_dtype_option(*cmd, s->dtype, "the kernels (default f32)");
  cmd->add_option("--seconds", s->seconds, "Least time spent timing each kernel (default 0.2)");
  flags.add_set(cmd);
  add_backend_option(*cmd, flags.backend);
  return {cmd, [s](const CommonOptions& common) {
            return run_bench_kernels(s->file, s->dtype, s->seconds, common);
          }};
}

Subcommand add_gradcheck(CLI::App& app, SharedFlags& flags) {
  struct State {
    std::vector<std::string> files;
    double tolerance = 1e-6;
    uint64_t seed = 1;
  };
  auto s = std::make_shared<State>();
  CLI::App* cmd =
      app.add_subcommand("gradcheck", "Check every symbolic VJP against finite differences");
  cmd->add_option("files", s->files, "Model files (*.ode) or folders of them")->required();
  cmd->add_option("--tolerance", s->tolerance, "Largest relative error accepted (default 1e-6)");
  cmd->add_option("--seed", s->seed, "Seed of the random points (default 1)");
  flags.add_set(cmd);
  return {cmd, [s](const CommonOptions& common) {
            return run_gradcheck(s->files, s->tolerance, s->seed, common);
          }};
}

/// The options every analysis starts with: the model and its parameters.
void add_analysis_head(CLI::App* sub, AnalyzeRequest& r) {
  sub->add_option("file", r.file, "Model file (*.ode)")->required();
  sub->add_option("--parameters", r.parameters,
                  "Trained parameters (a run folder); default: at initialisation");
}

/// The parameters' element type and the seed, which every analysis takes
/// after its own options.
void add_analysis_tail(CLI::App* sub, AnalyzeRequest& r, const char* seed_help) {
  rt::add_dtype_option(*sub, r.dtype, "the trained parameters (default f32)");
  sub->add_option("--seed", r.seed, seed_help);
}

Subcommand add_stability(CLI::App* analyze, SharedFlags& flags) {
  auto r = std::make_shared<AnalyzeRequest>();
  CLI::App* sub = analyze->add_subcommand(
      "stability", "Jacobian eigenvalues of the field against the solver's stability region");
  add_analysis_head(sub, *r);
  sub->add_option("--data", r->data,
                  "States along trajectories of this data's training samples (any --data "
                  "spec of train); default: the origin z = 0");
  sub->add_option("--samples", r->samples, "Training samples followed with --data (default 4)");
  add_analysis_tail(sub, *r, "Initialisation and split seed (default 0)");
  sub->add_flag("--json", r->json, "The report as JSON on stdout");
  sub->add_option("--plot", r->plot,
                  "Draw the region and the h*lambda points to FILE.png (gnuplot)");
  rt::add_data_flags(*sub, r->data_flags);
  flags.add_set(sub);
  return {sub, [r](const CommonOptions& common) { return run_analyze_stability(*r, common); }};
}

/// fixed-points and flow share the finder's options.
void add_finder_options(CLI::App* sub, AnalyzeRequest& r, SharedFlags& flags) {
  add_analysis_head(sub, r);
  sub->add_option("--input", r.input, "The value every input is held at (default 0: no pulse)");
  sub->add_option("--data", r.data,
                  "Start from states along trajectories of this data's training samples (any "
                  "--data spec of train); default: the origin and random states");
  sub->add_option("--samples", r.samples,
                  "Training samples (or random trajectories) followed (default 4)");
  sub->add_option("--starts", r.starts, "Starts of the fixed-point finder (default 100)");
  sub->add_option("--tolerance", r.tolerance,
                  "|f| at or below which a point is fixed (default 1e-8)");
  sub->add_option("--slow-tolerance", r.slow_tolerance,
                  "|f| at or below which a local minimum of |f|^2 is a slow point (default "
                  "0.01, paper 003 App. F.4)");
  sub->add_option("--marginal", r.marginal,
                  "|Re lambda| / max |lambda| below which an eigenvalue counts as zero "
                  "(default 1e-3)");
  add_analysis_tail(sub, r, "Initialisation, random-start and split seed (default 0)");
  rt::add_data_flags(*sub, r.data_flags);
  flags.add_set(sub);
}

Subcommand add_fixed_points(CLI::App* analyze, SharedFlags& flags) {
  auto r = std::make_shared<AnalyzeRequest>();
  CLI::App* sub = analyze->add_subcommand(
      "fixed-points", "Fixed and slow points of the field with its inputs held constant, "
                      "classified by their Jacobian spectra");
  add_finder_options(sub, *r, flags);
  sub->add_flag("--json", r->json, "The points as JSON on stdout");
  return {sub, [r](const CommonOptions& common) { return run_analyze_fixed_points(*r, common); }};
}

Subcommand add_flow(CLI::App* analyze, SharedFlags& flags) {
  auto r = std::make_shared<AnalyzeRequest>();
  CLI::App* sub = analyze->add_subcommand(
      "flow", "The flow field in the plane of the trajectories' two leading principal "
              "components, with the fixed points, as a PNG");
  add_finder_options(sub, *r, flags);
  sub->add_option("--plot", r->plot, "The PNG to draw (gnuplot)")->required();
  sub->add_option("--grid", r->grid, "Arrows per side (default 21)");
  return {sub, [r](const CommonOptions& common) { return run_analyze_flow(*r, common); }};
}

Subcommand add_repl(CLI::App& app, SharedFlags& flags) {
  auto r = std::make_shared<ReplRequest>();
  CLI::App* cmd = app.add_subcommand(
      "repl", "An interactive session: load, change, recompile, train, inspect (or --script)");
  cmd->add_option("file", r->file,
                  "Model file (*.ode) to load first, or a trained run folder to open");
  cmd->add_option("--data", r->data, "Data to use (any --data spec of train)");
  cmd->add_option("--script", r->script,
                  "Run the commands of FILE (- = stdin) and stop at the first error");
  rt::add_dtype_option(*cmd, r->dtype, "the kernels (default f32)");
  flags.add_set(cmd);
  return {cmd, [r](const CommonOptions& common) { return run_repl(*r, common); }};
}

Subcommand add_lsp(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "lsp",
      "A Language Server Protocol server on stdin and stdout, for editors (docs/editors.md)");
  return {cmd,
          [](const CommonOptions&) { return lsp::run_server(std::cin, std::cout, std::cerr); }};
}

Subcommand add_completion(CLI::App& app) {
  auto shell = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "completion", "Print a shell completion script: source <(plastic completion bash)");
  cmd->add_option("shell", *shell, "bash or zsh")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh"}));
  return {cmd, [&app, shell](const CommonOptions&) {
            std::cout << (*shell == "zsh" ? zsh_completion(app) : bash_completion(app));
            return kOk;
          }};
}

Subcommand add_man(CLI::App& app) {
  auto folder = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "man", "Write the man pages (plastic.1, plastic-train.1, ...) generated from --help");
  cmd->add_option("--out", *folder, "The folder to write them into (it must exist)")->required();
  return {cmd, [&app, folder](const CommonOptions&) {
            try {
              const int pages = write_man_pages(app, *folder, PLASTIC_VERSION);
              std::cout << "plastic man: " << pages << " pages in " << *folder << "\n";
              return kOk;
            } catch (const std::runtime_error& e) {
              std::cerr << "plastic man: " << e.what() << "\n";
              return kInputError;
            }
          }};
}

} // namespace

std::vector<Subcommand> add_tool_commands(CLI::App& app) {
  return {add_lsp(app), add_completion(app), add_man(app)};
}

std::vector<Subcommand> add_compile_commands(CLI::App& app, SharedFlags& flags) {
  return {add_check(app, flags), add_emit(app, flags), add_build(app, flags),
          add_bench_kernels(app, flags)};
}

std::vector<Subcommand> add_inspect_commands(CLI::App& app, SharedFlags& flags) {
  std::vector<Subcommand> out = {add_gradcheck(app, flags)};
  CLI::App* analyze =
      app.add_subcommand("analyze", "Questions about a model: stability, fixed points, flow field");
  analyze->require_subcommand(1);
  out.push_back(add_stability(analyze, flags));
  out.push_back(add_fixed_points(analyze, flags));
  out.push_back(add_flow(analyze, flags));
  out.push_back(add_repl(app, flags));
  return out;
}

} // namespace plastic::driver
