// `plastic emit`: print one stage of the compilation (so far: the AST).
#include "compiler/driver/commands.h"
#include "dsl/ast_printer.h"
#include "dsl/frontend.h"
#include "dsl/parser.h"

#include <fmt/format.h>

#include <iostream>

namespace plastic::driver {

int run_emit(const std::string& file, const std::string& stage, const CommonOptions& common) {
  using namespace plastic::dsl;
  DiagnosticEngine diag;
  std::string text;
  if (!read_file(file, text)) {
    std::cerr << fmt::format("plastic emit: cannot read '{}'\n", file);
    return kInputError;
  }
  if (stage == "ast") {
    auto source = std::make_shared<SourceFile>(file, text);
    Module m = parse(source, diag, false);
    diag.render(std::cerr, common.color);
    if (diag.has_errors()) return kInputError;
    std::cout << print_module(m);
    return kOk;
  }
  std::cerr << fmt::format("plastic emit: unknown stage '{}'\n", stage);
  return kUsageError;
}

}  // namespace plastic::driver
