// `gradient auto [budget 512 MB]` (issue 15 item 4): parsed with its unit,
// checked (a unit is required, one of KB MB GB TB), printed back as written,
// and refused on the other methods.
#include "tests/dsl/test_support.h"

#include <catch2/catch.hpp>

#include <string>

#include "dsl/ast_printer.h"

using namespace plastic;

namespace {

std::string model(const std::string& gradient) {
  return "model g\n"
         "input x : path[2] cubic\n"
         "input y : label[2]\n"
         "param W : [2, 2]\n"
         "state z : [2] = 0\n"
         "flow z' = W @ dx(t)\n"
         "output logits = z(T)\n"
         "loss cross_entropy(logits, y)\n"
         "solve rk4 step 1\n" +
         gradient + "\n";
}

} // namespace

TEST_CASE("gradient auto takes a budget with a unit", "[dsl][gradient]") {
  dsl::CheckResult r;
  std::string out = test::check_text(model("gradient auto budget 512 MB"), &r);
  INFO(out);
  REQUIRE(r.model);
  CHECK(r.model->gradient.method == dsl::GradientMethod::Auto);
  CHECK(r.model->gradient.budget_bytes == 512.0 * 1024 * 1024);
  CHECK(dsl::print_module(*r.model->modules[1]).find("gradient auto budget 512 MB") !=
        std::string::npos);
  out = test::check_text(model("gradient auto"), &r);
  REQUIRE(r.model);
  CHECK(r.model->gradient.budget_bytes == 0);
}

TEST_CASE("a budget without a known unit, or on another method, is an error", "[dsl][gradient]") {
  dsl::CheckResult r;
  std::string out = test::check_text(model("gradient auto budget 512"), &r);
  CHECK_FALSE(r.model);
  CHECK(out.find("the budget needs a unit") != std::string::npos);
  out = test::check_text(model("gradient auto budget 2 PB"), &r);
  CHECK_FALSE(r.model);
  CHECK(out.find("unknown unit 'PB'") != std::string::npos);
  out = test::check_text(model("gradient direct budget 2 GB"), &r);
  CHECK_FALSE(r.model);
  CHECK(out.find("unknown option 'budget' for gradient direct") != std::string::npos);
  out = test::check_text(model("gradient auto budget 0 MB"), &r);
  CHECK_FALSE(r.model);
  CHECK(out.find("the budget must be positive") != std::string::npos);
}
