// The `main` of an ahead-of-time model binary (`plastic build model.ode -o
// NAME`): the model's object (its kernels and plastic_model table) linked
// with the runtime and this file, and nothing of the compiler or LLVM.
//
//   ./NAME train --data …   eval   predict   bench   info   --help   --version
//
// The model commands are the driver's own (runtime/app/model_cli.h): the
// same flags, the same run folders, the same code, on the linked-in table
// instead of a JIT-compiled one. What this file adds is what only a binary
// needs: finding its table, `info`, and refusing a --dtype it was not built
// for (the element type is fixed when the kernels are compiled).
//
// Built as the static library plastic_model_main; `main` is pulled from it
// by the link, so the library comes after the model object and before
// plastic_runtime on the link line.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runtime/abi.h"
#include "runtime/app/allocator.h"
#include "runtime/app/app_error.h"
#include "runtime/app/model_cli.h"
#include "runtime/app/model_hash.h"
#include "runtime/app/model_info.h"
#include "runtime/app/parse_errors.h"
#include "runtime/app/program_name.h"
#include "runtime/app/standard_output.h"
#include "runtime/distributed/communicator.h"
#include "runtime/init/init.h"
#include "runtime/solvers/model_view.h"
#include "runtime/support/internal_error.h"

// The model's entry point, under the name the ABI gives it.
extern "C" const plastic_model* plastic_linked_model(void) __asm__(PLASTIC_MODEL_ENTRY_SYMBOL);
// How it was built (model_info.h). Weak: an object without it links too,
// and the binary then says what it cannot know.
extern "C" const char plastic_linked_info[] __asm__(PLASTIC_MODEL_INFO_SYMBOL)
    __attribute__((weak));

namespace {

using namespace plastic;

using rt::kInternalError;
using rt::kOk;
using rt::kUsageError;

const char* dtype_name(int32_t dtype) {
  return dtype == PLASTIC_F64 ? "f64" : "f32";
}

const char* gradient_name(int32_t kind) {
  switch (kind) {
  case PLASTIC_GRAD_DIRECT:
    return "direct";
  case PLASTIC_GRAD_CHECKPOINT:
    return "checkpoint";
  case PLASTIC_GRAD_ADJOINT:
    return "adjoint";
  default:
    return "unknown";
  }
}

nlohmann::json build_info() {
  const char* text = plastic_linked_info; // null when the object has none
  if (!text) return nlohmann::json::object();
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  return j.is_object() ? j : nlohmann::json::object();
}

std::string shape_text(const plastic_param& p) {
  std::string s = "[";
  for (int32_t d = 0; d < p.rank; ++d)
    s += fmt::format("{}{}", d ? "," : "", p.shape[d]);
  return s + "]";
}

// Everything `info` reports, as one JSON object (printed as text or as is).
nlohmann::ordered_json describe(const plastic_model& m, const nlohmann::json& info) {
  nlohmann::ordered_json j;
  j["model"] = m.name ? m.name : "";
  j["model_hash"] = rt::model_hash(m);
  j["source"] = info.value("source", nlohmann::json::object());
  j["sets"] = info.value("sets", nlohmann::json::object());
  j["dims"] = info.value("dims", nlohmann::json::object());
  const plastic_solver_desc& s = m.solver;
  j["solver"] = {
      {"method", s.method ? s.method : ""}, {"step", s.step}, {"rtol", s.rtol}, {"atol", s.atol}};
  j["gradient"] = {{"method", gradient_name(m.gradient.kind)},
                   {"checkpoint_every", m.gradient.checkpoint_every},
                   {"rtol", m.gradient.adjoint_rtol},
                   {"atol", m.gradient.adjoint_atol}};
  j["dtype"] = dtype_name(m.dtype);
  j["lanes"] = m.lanes;
  j["target"] = info.value("target", nlohmann::json::object());
  j["sizes"] = {{"state", m.n_state},   {"params", m.n_params},   {"input", m.n_input},
                {"static", m.n_static}, {"outputs", m.n_outputs}, {"targets", m.n_targets}};
  nlohmann::ordered_json params = nlohmann::ordered_json::array();
  for (int32_t i = 0; i < m.n_param_entries; ++i) {
    const plastic_param& p = m.params[i];
    params.push_back({{"name", p.name ? p.name : ""},
                      {"shape", std::vector<int64_t>(p.shape, p.shape + p.rank)},
                      {"offset", p.offset},
                      {"init", rt::init_kind_name(p.init)}});
  }
  j["parameters"] = params;
  j["abi_version"] = m.abi_version;
  j["plastic_version"] = info.value("plastic_version", "unknown");
  j["runtime_version"] = PLASTIC_VERSION;
  return j;
}

std::string key_values(const nlohmann::json& object) {
  std::string s;
  for (auto it = object.begin(); it != object.end(); ++it)
    s += fmt::format("{}{}={}", s.empty() ? "" : " ", it.key(),
                     it.value().is_number() ? fmt::format("{:g}", it.value().get<double>())
                                            : it.value().dump());
  return s.empty() ? "(none)" : s;
}

void print_info(const plastic_model& m, const nlohmann::ordered_json& j) {
  const auto& src = j["source"];
  fmt::print("model       {} ({})\n", j["model"].get<std::string>(),
             j["model_hash"].get<std::string>());
  fmt::print("source      {}\n",
             src.contains("file") ? fmt::format("{} (fnv1a64 {})", src["file"].get<std::string>(),
                                                src.value("fnv1a64", "?"))
                                  : std::string("(not recorded)"));
  fmt::print("sets        {}\n", key_values(j["sets"]));
  fmt::print("dims        {}\n", key_values(j["dims"]));
  const plastic_solver_desc& s = m.solver;
  fmt::print("solver      {} {}\n", s.method ? s.method : "?",
             s.rtol > 0 ? fmt::format("rtol {:g} atol {:g}", s.rtol, s.atol)
                        : fmt::format("step {:g}", s.step));
  fmt::print("gradient    {}\n", gradient_name(m.gradient.kind));
  fmt::print("dtype       {}, {} lanes per tile\n", dtype_name(m.dtype), m.lanes);
  // The feature list is long; `info --json` has it whole.
  const std::string target = j["target"].value("description", "(not recorded)");
  fmt::print("target      {}\n", target.substr(0, target.find(", features")));
  fmt::print("sizes       state {}, input {}, outputs {}, targets {}\n", m.n_state, m.n_input,
             m.n_outputs, m.n_targets);
  fmt::print("parameters  {} in {} tensors\n", m.n_params, m.n_param_entries);
  for (int32_t i = 0; i < m.n_param_entries; ++i) {
    const plastic_param& p = m.params[i];
    fmt::print("  {:<20} {:<16} {}\n", p.name ? p.name : "", shape_text(p),
               rt::init_kind_name(p.init));
  }
  fmt::print("abi         version {}\n", m.abi_version);
  fmt::print("plastic     {} (compiler), {} (runtime)\n", j["plastic_version"].get<std::string>(),
             j["runtime_version"].get<std::string>());
}

std::string program_name(const char* argv0) {
  std::string s = argv0 ? argv0 : "model";
  size_t slash = s.rfind('/');
  return slash == std::string::npos ? s : s.substr(slash + 1);
}

int run(int argc, char** argv) {
  const plastic_model* table = plastic_linked_model();
  // The table was linked in: a mismatch is a broken build, not a user error.
  if (!table || table->abi_version != PLASTIC_ABI_VERSION ||
      table->struct_size != sizeof(plastic_model))
    throw InternalError(
        fmt::format("the linked model table has ABI version {} (this runtime reads {})",
                    table ? table->abi_version : 0, PLASTIC_ABI_VERSION));
  if (auto st = rt::validate_model(*table, table->dtype); !st.ok())
    throw InternalError("the linked model table is invalid: " + st.describe());
  const plastic_model& m = *table;
  const nlohmann::json info = build_info();
  const std::string name = program_name(argv[0]);

  CLI::App app{
      fmt::format(
          "{}: the model {} ({}, {} x {} lanes), compiled ahead of time by Plastic.\n"
          "Exit codes: 0 ok, 1 errors in the input, 2 usage error, 3 internal error (a bug).",
          name, m.name, rt::model_hash(m), dtype_name(m.dtype), m.lanes),
      name};
  app.set_version_flag("--version", fmt::format("{} (model {}, {}), plastic {}", name,
                                                rt::model_hash(m), dtype_name(m.dtype),
                                                info.value("plastic_version", PLASTIC_VERSION)));
  app.require_subcommand(1);
  rt::ModelCli cli(app, "bench");
  bool info_json = false;
  CLI::App* info_cmd =
      app.add_subcommand("info", "Describe the model: source, dims, solver, parameters, target");
  info_cmd->add_flag("--json", info_json, "As one JSON object");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return rt::report_parse_error(app, e, name);
  }

  if (info_cmd->parsed()) {
    nlohmann::ordered_json j = describe(m, info);
    if (info_json)
      std::cout << j.dump(2) << "\n";
    else
      print_info(m, j);
    return kOk;
  }
  if (cli.parsed() == rt::ModelCommand::None) return kUsageError;
  cli.watch_interrupts();
  // The kernels were compiled for one element type: --dtype may only repeat it.
  std::string& dtype = cli.dtype();
  const std::string own = dtype_name(m.dtype);
  if (cli.parsed_app()->count("--dtype") > 0 && dtype != own) {
    std::cerr << fmt::format(
        "{}: this binary was built for {}; build an {} one with `plastic build --dtype {}`\n", name,
        own, dtype, dtype);
    return kUsageError;
  }
  dtype = own;
  return cli.run(m, info.value("dims", nlohmann::json::object()));
}

} // namespace

int main(int argc, char** argv) {
  // The runtime's messages start with this binary's name, not `plastic:`.
  rt::set_program_name(program_name(argc > 0 ? argv[0] : nullptr));
  // Under mpirun: one rank of a data-parallel job (runtime/distributed).
  if (std::string refused = rt::init_distributed(argc, argv); !refused.empty()) {
    std::cerr << program_name(argc > 0 ? argv[0] : nullptr) << ": " << refused << "\n";
    return kUsageError;
  }
  // Line-buffered even into a pipe, as the driver: epochs show as they end.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  plastic::rt::keep_freed_memory();
  try {
    return rt::finish_distributed(
        rt::finish_standard_output(run(argc, argv), program_name(argc > 0 ? argv[0] : nullptr)));
  } catch (const plastic::InternalError& e) {
    std::cerr << program_name(argc > 0 ? argv[0] : nullptr) << ": " << e.what() << "\n";
    return kInternalError;
  } catch (const std::exception& e) {
    if (auto code = rt::output_failure_code(e, program_name(argc > 0 ? argv[0] : nullptr)))
      return *code;
    std::cerr << program_name(argc > 0 ? argv[0] : nullptr) << ": "
              << plastic::InternalError(e.what()).what() << "\n";
    return kInternalError;
  }
}
