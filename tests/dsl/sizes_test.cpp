// Sizes are computed with overflow checks (issue 19, defect 6): a parameter,
// state or input whose element count overflows int64 — or exceeds the 2^40
// a model may hold — is a located error naming the dim to lower and what
// would fit, instead of a model that "checks clean" with a negative or
// wrapped parameter count.
#include "tests/dsl/test_support.h"

#include <catch2/catch.hpp>

#include <string>

using namespace plastic;

namespace {

std::string model(const std::string& dims, const std::string& decls) {
  return "model sizes\n" + dims +
         "\n"
         "input x : path[2] cubic\n"
         "input y : label[2]\n"
         "param W : [2, 2]\n" +
         decls +
         "\n"
         "state z : [2] = 0\n"
         "flow z' = W @ dx(t)\n"
         "output logits = z(T)\n"
         "loss cross_entropy(logits, y)\n"
         "solve rk4 step 1\n";
}

} // namespace

TEST_CASE("a parameter of 10^20 elements is a located error, not a wrapped count", "[dsl][sizes]") {
  dsl::CheckResult r;
  const std::string out = test::check_text(model("dim a = 100000", "param big : [a, a, a, a]"), &r);
  INFO(out);
  CHECK_FALSE(r.model);
  CHECK(out.find("test.ode:6:7: error: parameter 'big' has 1e+20 elements") != std::string::npos);
  CHECK(out.find("a = 100000 here; a <= 1024 would fit") != std::string::npos);
  CHECK(out.find("^") != std::string::npos);
}

TEST_CASE("a parameter of 10^36 elements (dims of 10^9) is refused the same way", "[dsl][sizes]") {
  dsl::CheckResult r;
  const std::string out =
      test::check_text(model("dim a = 1000000000", "param big : [a, a, a, a]"), &r);
  INFO(out);
  CHECK_FALSE(r.model);
  CHECK(out.find("parameter 'big' has 1e+36 elements") != std::string::npos);
}

TEST_CASE("a --set dim that makes a state overflow is refused at the state", "[dsl][sizes]") {
  dsl::CheckOptions options;
  options.overrides["n"] = 1e9;
  dsl::CheckResult r;
  const std::string text = "model sizes\n"
                           "dim n = 4\n"
                           "input x : path[2] cubic\n"
                           "input y : label[2]\n"
                           "param W : [2, 2]\n"
                           "state h : [n, n, n] = 0\n"
                           "state z : [2] = 0\n"
                           "flow h' = h\n"
                           "flow z' = W @ dx(t)\n"
                           "output logits = z(T)\n"
                           "loss cross_entropy(logits, y)\n"
                           "solve rk4 step 1\n";
  const std::string out = test::check_text(text, &r, options);
  INFO(out);
  CHECK_FALSE(r.model);
  CHECK(out.find("test.ode:6:12: error: state 'h' has 1e+27 elements") != std::string::npos);
  CHECK(out.find("n <= 10321 would fit") != std::string::npos);
}

TEST_CASE("a layer too large is reported at the user's declaration", "[dsl][sizes]") {
  dsl::CheckResult r;
  const std::string out =
      test::check_text(model("dim a = 1000000000", "param big : linear[a, a]"), &r);
  INFO(out);
  CHECK_FALSE(r.model);
  CHECK(out.find("test.ode:6:7: error: parameter 'big' has 1e+18 elements") != std::string::npos);
}

TEST_CASE("parameters that only together exceed the limit name the one that tips it",
          "[dsl][sizes]") {
  dsl::CheckResult r;
  const std::string out =
      test::check_text(model("dim a = 800000", "param p1 : [a, a]\nparam p2 : [a, a]"), &r);
  INFO(out);
  CHECK_FALSE(r.model);
  CHECK(out.find("test.ode:7:7: error: with parameter 'p2'") != std::string::npos);
}

TEST_CASE("sizes within the limit check clean with the exact count", "[dsl][sizes]") {
  dsl::CheckResult r;
  const std::string out = test::check_text(model("dim a = 1000", "param big : [a, a, a]"), &r);
  INFO(out);
  REQUIRE(r.model);
  CHECK(r.model->param_count() == 1000000000 + 4);
}
