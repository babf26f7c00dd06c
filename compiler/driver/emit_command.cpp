// `plastic emit`: print one stage of the compilation — the parsed model
// (--ast), its IR functions (--ir), their derivatives (--grad-ir), the fused
// solver steps (--step-ir), or node counts per function (--stats). The
// printing itself is emit.h's, shared with the REPL.
#include "compiler/driver/commands.h"
#include "compiler/driver/emit.h"
#include "compiler/driver/load_model.h"
#include "compiler/passes/pipeline.h"
#include "dsl/ast_printer.h"
#include "dsl/frontend.h"
#include "dsl/parser.h"

#include <fmt/format.h>

#include <iostream>

namespace plastic::driver {

int emit_ast(const std::string& name, const std::string& text, const CommonOptions& common,
             std::ostream& out) {
  using namespace plastic::dsl;
  DiagnosticEngine diag;
  diag.set_max_errors(common.error_limit);
  auto source = std::make_shared<SourceFile>(name, text);
  Module m = parse(source, diag, false);
  diag.render(std::cerr, common.color);
  if (diag.has_errors()) return kInputError;
  out << print_module(m);
  return kOk;
}

int emit_functions(const model::ModelFunctions& fns, const std::string& stage, std::ostream& out) {
  auto print_all = [&](const std::vector<model::NamedFunction>& list) {
    for (const model::NamedFunction& f : list)
      out << ir::print(f.fn) << "\n";
  };
  if (stage == "ir")
    print_all(fns.primal);
  else if (stage == "grad-ir")
    print_all(fns.derived);
  else if (stage == "step-ir") {
    for (const model::NamedFunction* f : fns.step_functions())
      out << ir::print(f->fn) << "\n";
  } else if (stage == "stats") {
    out << fmt::format("{:<32} {:>8} {:>8} {:>8}\n", "function", "inputs", "outputs", "nodes");
    for (const model::NamedFunction* f : fns.functions())
      out << fmt::format("{:<32} {:>8} {:>8} {:>8}\n", model::to_string(f->role),
                         f->fn.inputs().size(), f->fn.outputs().size(), model::node_count(f->fn));
  } else {
    std::cerr << fmt::format("plastic emit: unknown stage '{}'\n", stage);
    return kUsageError;
  }
  return kOk;
}

int run_emit(const std::string& file, const std::string& stage, const CommonOptions& common,
             bool print_after_all) {
  if (stage == "ast") {
    std::string text;
    if (std::string why; !dsl::read_file(file, text, &why)) {
      std::cerr << fmt::format("plastic emit: cannot read '{}': {}\n", file, why);
      return kInputError;
    }
    return emit_ast(file, text, common, std::cout);
  }
  int code = kOk;
  std::function<void(std::string_view, const ir::Function&)> after;
  if (print_after_all) after = passes::print_after_all(std::cout);
  auto fns = load_model(file, common, code, after);
  if (!fns) return code;
  return emit_functions(*fns, stage, std::cout);
}

} // namespace plastic::driver
