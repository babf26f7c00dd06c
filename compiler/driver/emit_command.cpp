// `plastic emit`: print one stage of the compilation — the parsed model
// (--ast), its IR functions (--ir), their derivatives (--grad-ir), the fused
// solver steps (--step-ir), or node counts per function (--stats).
#include "compiler/driver/commands.h"
#include "compiler/driver/load_model.h"
#include "compiler/passes/pipeline.h"
#include "dsl/ast_printer.h"
#include "dsl/parser.h"

#include <fmt/format.h>

#include <iostream>

namespace plastic::driver {

static int emit_ast(const std::string& file, const CommonOptions& common) {
  using namespace plastic::dsl;
  DiagnosticEngine diag;
  diag.set_max_errors(common.error_limit);
  std::string text;
  if (!read_file(file, text)) {
    std::cerr << fmt::format("plastic emit: cannot read '{}'\n", file);
    return kInputError;
  }
  auto source = std::make_shared<SourceFile>(file, text);
  Module m = parse(source, diag, false);
  diag.render(std::cerr, common.color);
  if (diag.has_errors()) return kInputError;
  std::cout << print_module(m);
  return kOk;
}

int run_emit(const std::string& file, const std::string& stage, const CommonOptions& common,
             bool print_after_all) {
  if (stage == "ast") return emit_ast(file, common);
  int code = kOk;
  std::function<void(std::string_view, const ir::Function&)> after;
  if (print_after_all) after = passes::print_after_all(std::cout);
  auto fns = load_model(file, common, code, after);
  if (!fns) return code;
  auto print_all = [](const std::vector<model::NamedFunction>& list) {
    for (const model::NamedFunction& f : list)
      std::cout << ir::print(f.fn) << "\n";
  };
  if (stage == "ir")
    print_all(fns->primal);
  else if (stage == "grad-ir")
    print_all(fns->derived);
  else if (stage == "step-ir") {
    for (const model::NamedFunction* f : fns->step_functions())
      std::cout << ir::print(f->fn) << "\n";
  } else if (stage == "stats") {
    std::cout << fmt::format("{:<32} {:>8} {:>8} {:>8}\n", "function", "inputs", "outputs",
                             "nodes");
    for (const model::NamedFunction* f : fns->functions())
      std::cout << fmt::format("{:<32} {:>8} {:>8} {:>8}\n", model::to_string(f->role),
                               f->fn.inputs().size(), f->fn.outputs().size(),
                               model::node_count(f->fn));
  } else {
    std::cerr << fmt::format("plastic emit: unknown stage '{}'\n", stage);
    return kUsageError;
  }
  return kOk;
}

} // namespace plastic::driver
