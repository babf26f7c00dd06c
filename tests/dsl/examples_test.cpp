// Every model of the zoo (examples/) checks clean: no error, no warning.
#include "tests/dsl/test_support.h"

#include <catch2/catch.hpp>

using namespace plastic;

TEST_CASE("every example checks clean", "[dsl][examples]") {
  auto files = test::ode_files("examples");
  REQUIRE(files.size() >= 20);
  for (const auto& file : files) {
    INFO(file.string());
    dsl::DiagnosticEngine diag;
    dsl::CheckResult r = dsl::check_file(file.string(), {}, diag);
    std::ostringstream os;
    diag.render(os);
    INFO(os.str());
    CHECK(r.model != nullptr);
    CHECK(diag.warning_count() == 0);
    if (r.model) {
      CHECK(r.model->param_count() > 0);
      CHECK(r.model->state_size() > 0);
      CHECK(r.model->loss != nullptr);
    }
  }
}

TEST_CASE("every example opens with the paper it implements", "[dsl][examples]") {
  for (const auto& file : test::ode_files("examples")) {
    INFO(file.string());
    std::string text;
    REQUIRE(dsl::read_file(file.string(), text));
    std::string head = text.substr(0, 2000);
    bool cites_paper =
        head.find("paper 00") != std::string::npos || head.find("00") != std::string::npos;
    CHECK(cites_paper);
    CHECK(head.find("Eq") != std::string::npos);
  }
}

TEST_CASE("a dim named only by a dim that --set replaced is not reported unused",
          "[dsl][examples]") {
  // The sepsis files declare d_in = 1 + 2 * d_feat and the experiments set
  // d_in; d_feat still says what d_in is made of.
  const std::string text = "model tied\n"
                           "dim d_feat = 3, d_in = 1 + 2 * d_feat, spare = 4\n"
                           "input x : path[d_in] cubic\n"
                           "input y : label[2]\n"
                           "param W : [2, d_in]\n"
                           "state z : [2] = 0\n"
                           "flow z' = W @ dx(t)\n"
                           "output logits = z(T)\n"
                           "loss cross_entropy(logits, y)\n"
                           "solve rk4 step 1\n";
  dsl::CheckOptions options;
  options.overrides["d_in"] = 5;
  dsl::CheckResult r;
  const std::string out = test::check_text(text, &r, options);
  REQUIRE(r.model);
  CHECK_THAT(out, !Catch::Contains("'d_feat' is never used"));
  CHECK_THAT(out, Catch::Contains("dim 'spare' is never used")); // still reported
}

TEST_CASE("dims can be overridden with --set", "[dsl][examples]") {
  dsl::DiagnosticEngine diag;
  auto path = (test::source_dir() / "examples" / "fwp_delta_cde.ode").string();
  dsl::CheckResult base = dsl::check_file(path, {}, diag);
  REQUIRE(base.model);
  dsl::CheckOptions options;
  options.overrides["d_head"] = 32;
  dsl::CheckResult wider = dsl::check_file(path, options, diag);
  REQUIRE(wider.model);
  CHECK(wider.model->state_size() > base.model->state_size());
  const dsl::StateInfo* w = wider.model->find_state(wider.model->states[0].name);
  REQUIRE(w);
  CHECK(w->shape.back() == 32);

  options.overrides = {{"d_hed", 32}};
  dsl::DiagnosticEngine diag2;
  dsl::CheckResult bad = dsl::check_file(path, options, diag2);
  CHECK_FALSE(bad.model);
  CHECK(bad.usage_error);
  std::ostringstream os;
  diag2.render(os);
  CHECK_THAT(os.str(), Catch::Contains("did you mean 'd_head'?"));
}
