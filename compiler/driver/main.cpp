// `plastic`: the command-line driver.
//
// Parses the command line with CLI11 and dispatches to one subcommand
// (commands.h). Every exception that escapes a subcommand is a bug and is
// reported as one, with its own exit code.
#include "compiler/driver/commands.h"
#include "dsl/diagnostics.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

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
    if (end == value.c_str() || *end != '\0') {
      std::cerr << fmt::format("plastic: --set {}: '{}' is not a number\n", name, value);
      return false;
    }
    common.overrides[name] = v;
  }
  return true;
}

int main(int argc, char** argv) {
  CLI::App app{"Plastic: a compiler for neural differential equations whose vector fields are learning rules.\n"
               "Exit codes: 0 ok, 1 errors in the input, 2 usage error, 3 internal error (a bug)."};
  app.set_version_flag("--version", std::string("plastic ") + PLASTIC_VERSION);
  app.require_subcommand(1);

  std::vector<std::string> sets;
  auto add_set = [&](CLI::App* cmd) {
    cmd->add_option("--set", sets, "Override a dim or const: --set d_head=32 (repeatable)");
  };

  std::vector<std::string> check_files;
  bool json = false;
  CLI::App* check = app.add_subcommand("check", "Check models and print a summary of each");
  check->add_option("files", check_files, "Model files (*.ode) or folders of them")->required();
  check->add_flag("--json", json, "Print the summaries as JSON");
  add_set(check);

  std::string emit_file;
  bool emit_ast = false, emit_ir = false, emit_grad = false, emit_step = false, emit_stats = false;
  bool print_after_all = false;
  CLI::App* emit = app.add_subcommand("emit", "Print one stage of the compilation");
  emit->add_option("file", emit_file, "Model file (*.ode)")->required();
  emit->add_flag("--ast", emit_ast, "The parsed model, printed back as source");
  emit->add_flag("--ir", emit_ir, "The model's IR functions: field, initial state, outputs, jump, loss");
  emit->add_flag("--grad-ir", emit_grad, "Their VJPs and the continuous adjoint system");
  emit->add_flag("--step-ir", emit_step, "The fused step of the model's solver (and dopri5) and its VJP");
  emit->add_flag("--stats", emit_stats, "Node counts per function");
  emit->add_flag("--print-after-all", print_after_all, "Print every function after every optimisation pass");
  add_set(emit);

  std::vector<std::string> gradcheck_files;
  double tolerance = 1e-6;
  uint64_t seed = 1;
  CLI::App* gradcheck = app.add_subcommand("gradcheck", "Check every symbolic VJP against finite differences");
  gradcheck->add_option("files", gradcheck_files, "Model files (*.ode) or folders of them")->required();
  gradcheck->add_option("--tolerance", tolerance, "Largest relative error accepted (default 1e-6)");
  gradcheck->add_option("--seed", seed, "Seed of the random points (default 1)");
  add_set(gradcheck);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kOk : kUsageError;
  }

  CommonOptions common;
  common.color = isatty(STDERR_FILENO) && !std::getenv("NO_COLOR");
  if (!parse_overrides(sets, common)) return kUsageError;

  try {
    if (check->parsed()) return run_check(check_files, json, common);
    if (emit->parsed()) {
      int chosen = emit_ast + emit_ir + emit_grad + emit_step + emit_stats;
      if (chosen != 1) {
        std::cerr << "plastic emit: choose one stage: --ast, --ir, --grad-ir, --step-ir or --stats\n";
        return kUsageError;
      }
      std::string stage = emit_ast ? "ast" : emit_ir ? "ir" : emit_grad ? "grad-ir" : emit_step ? "step-ir" : "stats";
      return run_emit(emit_file, stage, common, print_after_all);
    }
    if (gradcheck->parsed()) return run_gradcheck(gradcheck_files, tolerance, seed, common);
  } catch (const std::exception& e) {
    std::string what = e.what();
    if (what.find("internal error") == std::string::npos)
      what = "internal error (this is a bug in Plastic, please report it): " + what;
    std::cerr << "plastic: " << what << "\n";
    return kInternalError;
  }
  return kUsageError;
}
