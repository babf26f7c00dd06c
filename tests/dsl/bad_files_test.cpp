// Golden diagnostics: every file in tests/dsl/bad/ marks the diagnostics it
// must produce with trailing `#~ error: <text>` / `#~ warning: <text>`
// comments on the offending line (clox's `// expect` style). The test checks
// that each expectation is met on its line and that no unexpected error
// appears, so recovery neither loses nor invents errors.
#include "tests/dsl/test_support.h"

#include <catch2/catch.hpp>

#include <regex>

using namespace plastic;

namespace {
struct Expectation {
  uint32_t line;
  dsl::Severity severity;
  std::string text;
  bool met = false;
};

std::vector<Expectation> expectations(const std::string& text) {
  std::vector<Expectation> out;
  std::regex marker(R"(#~\s*(error|warning):\s*(.*?)\s*$)");
  std::istringstream in(text);
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n) {
    std::smatch m;
    if (std::regex_search(line, m, marker))
      out.push_back({n, m[1] == "error" ? dsl::Severity::Error : dsl::Severity::Warning, m[2]});
  }
  return out;
}
} // namespace

TEST_CASE("bad files give their expected diagnostics", "[dsl][diagnostics]") {
  auto files = test::ode_files("tests/dsl/bad");
  REQUIRE(files.size() >= 20);
  for (const auto& file : files) {
    std::string text;
    REQUIRE(dsl::read_file(file.string(), text));
    auto expected = expectations(text);
    INFO(file.filename().string());
    REQUIRE_FALSE(expected.empty());

    dsl::DiagnosticEngine diag;
    dsl::CheckResult r = dsl::check_file(file.string(), {}, diag);
    std::ostringstream rendered;
    diag.render(rendered);
    INFO(rendered.str());
    bool expects_error = false;
    for (auto& e : expected)
      expects_error |= e.severity == dsl::Severity::Error;
    CHECK((r.model == nullptr) == expects_error);

    for (const dsl::Diagnostic& d : diag.all()) {
      if (d.severity == dsl::Severity::Note) continue;
      uint32_t line = d.span.valid() ? d.span.file->line_col(d.span.begin).line : 0;
      bool matched = false;
      for (auto& e : expected)
        if (e.line == line && e.severity == d.severity &&
            d.message.find(e.text) != std::string::npos)
          e.met = matched = true;
      if (d.severity == dsl::Severity::Error) {
        INFO("unexpected error on line " << line << ": " << d.message);
        CHECK(matched);
      }
    }
    for (const auto& e : expected) {
      INFO("expected on line " << e.line << ": " << e.text);
      CHECK(e.met);
    }
  }
}

TEST_CASE("a diagnostic shows file:line:col, the line, a caret under the span and a hint",
          "[dsl][diagnostics]") {
  std::string out = test::check_text("model m\n"
                                     "dim d = 4\n"
                                     "input x : path[3] cubic\n"
                                     "input y : label[2]\n"
                                     "param A : [d, d, 3]\n"
                                     "param B : [2, d]\n"
                                     "state h : [d] = 0\n"
                                     "flow h' = A @ h\n"
                                     "output o = B @ h\n"
                                     "loss cross_entropy(o, y)\n"
                                     "solve rk4 step 0.5\n");
  CHECK_THAT(out, Catch::Contains("test.ode:8:11: error: shapes [4,4,3] and [4] do not contract"));
  CHECK_THAT(out, Catch::Contains(" 8 | flow h' = A @ h\n   |           ^~~~~\n"));
  CHECK_THAT(out, Catch::Contains("hint: [4,4,3] @ [4]: 3 ≠ 4"));
}

TEST_CASE("near-miss names get a suggestion", "[dsl][diagnostics]") {
  std::string out = test::check_text("model m\n"
                                     "input x : path[3] cubic\n"
                                     "input y : label[2]\n"
                                     "param weight : [3, 3]\n"
                                     "param read : [2, 3]\n"
                                     "state h : [3] = 0\n"
                                     "flow h' = tanh(wieght @ h) * dx(t)\n"
                                     "output o = read @ h\n"
                                     "loss cross_entropy(o, y)\n"
                                     "solve rk4 step 0.5\n");
  CHECK_THAT(out, Catch::Contains("unknown name 'wieght'"));
  CHECK_THAT(out, Catch::Contains("did you mean 'weight'?"));
}

TEST_CASE("the parser recovers at declaration boundaries", "[dsl][diagnostics]") {
  dsl::CheckResult r;
  std::string out = test::check_text("model m\n"
                                     "dim d = (3\n"
                                     "param W : [d, d] init glorot_uniform\n"
                                     "state h : [d = 0\n"
                                     "flow h' = W @ h +\n"
                                     "output o = h $ 2\n",
                                     &r);
  CHECK_FALSE(r.model);
  // One error per broken declaration, not a cascade.
  CHECK_THAT(out, Catch::Contains("test.ode:2:"));
  CHECK_THAT(out, Catch::Contains("test.ode:4:"));
  CHECK_THAT(out, Catch::Contains("test.ode:5:"));
  CHECK_THAT(out, Catch::Contains("test.ode:6:"));
  CHECK_THAT(out, Catch::Contains("unexpected character '$'"));
}
