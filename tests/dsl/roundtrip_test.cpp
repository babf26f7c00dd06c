// The AST printer's output parses back to an AST that prints identically,
// for the prelude, every example and every bad file that parses.
#include "dsl/ast_printer.h"
#include "dsl/parser.h"
#include "tests/dsl/test_support.h"

#include <catch2/catch.hpp>

using namespace plastic;

namespace {
std::string print_parsed(const std::string& name, const std::string& text, bool library, bool& ok) {
  dsl::DiagnosticEngine diag;
  auto file = std::make_shared<dsl::SourceFile>(name, text);
  dsl::Module m = dsl::parse(file, diag, library);
  ok = !diag.has_errors();
  return dsl::print_module(m);
}

void check_round_trip(const std::string& name, const std::string& text, bool library) {
  bool ok = false;
  std::string once = print_parsed(name, text, library, ok);
  if (!ok) return;
  bool ok2 = false;
  std::string twice = print_parsed(name + " (printed)", once, library, ok2);
  INFO(name << "\n--- printed once ---\n" << once);
  CHECK(ok2);
  CHECK(once == twice);
}
} // namespace

TEST_CASE("print -> parse -> print is the identity", "[dsl][ast]") {
  check_round_trip("<prelude>", std::string(dsl::prelude_source()), true);
  int files = 0;
  for (const char* folder : {"examples", "tests/dsl/bad"})
    for (const auto& file : test::ode_files(folder)) {
      std::string text;
      REQUIRE(dsl::read_file(file.string(), text));
      check_round_trip(file.string(), text, false);
      ++files;
    }
  CHECK(files > 20);
}

TEST_CASE("printing keeps precedence and literals exact", "[dsl][ast]") {
  bool ok = false;
  std::string out =
      print_parsed("t.ode",
                   "model m\n"
                   "output o = -(a + b) * c @ d - e / (f - g) ^ 2 + -1.5e-07 + x[..., 0:n] + 0.1\n",
                   false, ok);
  REQUIRE(ok);
  CHECK_THAT(out,
             Catch::Contains(
                 "output o = -(a + b) * c @ d - e / (f - g) ^ 2 + -1.5e-07 + x[..., 0:n] + 0.1"));
}
