// Dims taken from the data (`dim d from data.channels [else N]`) and the
// path options (`with time, unit_increments`): parsed, printed back, given
// their value by the data, by a --set where there are no data, or by the
// `else` value; a --set that contradicts the data, a misspelt quantity or a
// missing value is an error at the right place with the fix.
#include "tests/dsl/test_support.h"

#include <catch2/catch.hpp>

#include "dsl/ast_printer.h"
#include "dsl/frontend.h"
#include "dsl/parser.h"

#include <memory>

using namespace plastic;

namespace {

// A small CDE classifier whose input and class count come from the data.
std::string model(const std::string& dims, const std::string& path = "with time") {
  return "model m\n" + dims +
         "dim d_in = 1 + d_data, hidden = 4\n"
         "input x : path[d_in] cubic " +
         path +
         "\n"
         "input y : label[classes]\n"
         "param A : [hidden, d_in] init glorot_uniform\n"
         "param out : linear[hidden, classes]\n"
         "state z : [hidden] = 0\n"
         "flow z' = tanh(A @ dx(t))\n"
         "output logits = out(z(T))\n"
         "loss cross_entropy(logits, y)\n"
         "solve rk4 step 1.0\n"
         "gradient direct\n";
}

const std::string kFromData = "dim d_data from data.channels\ndim classes from data.classes\n";

double dim(const dsl::CheckResult& r, const std::string& name) {
  for (const dsl::DimValue& d : r.model->dims)
    if (d.name == name) return d.value;
  FAIL("no dim " << name);
  return 0;
}

dsl::CheckOptions with_data(int64_t channels, int64_t classes) {
  dsl::CheckOptions o;
  o.data_quantities = {{"channels", channels}, {"classes", classes}};
  o.data_name = "toy/";
  return o;
}

} // namespace

TEST_CASE("from-data dims take the data's channels and classes", "[dsl][data_dims]") {
  dsl::CheckResult r;
  std::string out = test::check_text(model(kFromData), &r, with_data(3, 5));
  INFO(out);
  REQUIRE(r.model);
  CHECK(dim(r, "d_data") == 3);
  CHECK(dim(r, "classes") == 5);
  CHECK(dim(r, "d_in") == 4);
  CHECK(r.model->dims[0].from_data == "channels");
  CHECK_FALSE(r.model->dims[0].overridden);
  REQUIRE(r.model->inputs.size() == 2);
  CHECK(r.model->inputs[0].with_time);
  CHECK_FALSE(r.model->inputs[0].unit_increments);
  CHECK(out.empty());
}

TEST_CASE("without data a from-data dim takes --set or its else value", "[dsl][data_dims]") {
  dsl::CheckOptions o;
  o.overrides = {{"d_data", 7}, {"classes", 2}};
  dsl::CheckResult r;
  std::string out = test::check_text(model(kFromData), &r, o);
  INFO(out);
  REQUIRE(r.model);
  CHECK(dim(r, "d_data") == 7);
  CHECK(r.model->dims[0].overridden);

  dsl::CheckResult e;
  out = test::check_text(
      model("dim d_data from data.channels else 3\ndim classes from data.classes else 20\n"), &e);
  INFO(out);
  REQUIRE(e.model);
  CHECK(dim(e, "d_data") == 3);
  CHECK(dim(e, "classes") == 20);
  // With data, the data win over the else value.
  dsl::CheckResult d;
  test::check_text(
      model("dim d_data from data.channels else 3\ndim classes from data.classes else 20\n"), &d,
      with_data(6, 4));
  REQUIRE(d.model);
  CHECK(dim(d, "d_data") == 6);
  CHECK(dim(d, "classes") == 4);
}

TEST_CASE("without data or a value, a from-data dim says what to give", "[dsl][data_dims]") {
  dsl::CheckResult r;
  std::string out = test::check_text(model(kFromData), &r);
  INFO(out);
  CHECK_FALSE(r.model);
  CHECK_THAT(out, Catch::Contains("test.ode:2:17: error: dim 'd_data' comes from the data, and "
                                  "this command reads none"));
  CHECK_THAT(out, Catch::Contains("give --data, or the value: --set d_data=N"));
}

TEST_CASE("a --set that contradicts the data gives the exact fix", "[dsl][data_dims]") {
  dsl::CheckOptions o = with_data(3, 4);
  o.overrides = {{"classes", 5}};
  dsl::CheckResult r;
  std::string out = test::check_text(model(kFromData), &r, o);
  INFO(out);
  CHECK_FALSE(r.model);
  CHECK(r.usage_error);
  CHECK_THAT(out, Catch::Contains("test.ode:3:18: error: --set classes=5 contradicts the data: "
                                  "toy/ has 4 classes (dim 'classes' comes from data.classes)"));
  CHECK_THAT(out, Catch::Contains("leave out --set classes, or give --set classes=4"));
  // A --set that agrees is accepted.
  o.overrides = {{"classes", 4}};
  dsl::CheckResult ok;
  test::check_text(model(kFromData), &ok, o);
  CHECK(ok.model);
}

TEST_CASE("misspelt from-data dims and path options are located errors", "[dsl][data_dims]") {
  std::string out = test::check_text(model("dim d_data from data.chanels\ndim classes = 2\n"));
  CHECK_THAT(out, Catch::Contains("test.ode:2:22: error: the data have no quantity 'chanels'"));
  CHECK_THAT(out, Catch::Contains("did you mean 'data.channels'?"));
  out = test::check_text(model("dim d_data from dataset.channels\ndim classes = 2\n"));
  CHECK_THAT(out, Catch::Contains("test.ode:2:17: error: a dim comes from 'data', not 'dataset'"));
  out = test::check_text(model("dim d_data from data channels\ndim classes = 2\n"));
  CHECK_THAT(out, Catch::Contains("test.ode:2:22: error: expected '.'"));
  out = test::check_text(model("dim d_data = 3, classes = 2\n", "with tme"));
  CHECK_THAT(out, Catch::Contains("test.ode:4:33: error: unknown path option 'tme'"));
  CHECK_THAT(out, Catch::Contains("did you mean 'time'?"));
}

TEST_CASE("from-data dims and path options print back as written", "[dsl][data_dims]") {
  dsl::DiagnosticEngine diag;
  auto file = std::make_shared<dsl::SourceFile>(
      "t.ode", model("dim d_data from data.channels else 3\ndim classes from data.classes\n",
                     "with time, unit_increments"));
  const dsl::Module m = dsl::parse(file, diag);
  REQUIRE_FALSE(diag.has_errors());
  const std::string printed = dsl::print_module(m);
  CHECK_THAT(printed, Catch::Contains("dim d_data from data.channels else 3\n"));
  CHECK_THAT(printed, Catch::Contains("dim classes from data.classes\n"));
  CHECK_THAT(printed, Catch::Contains("input x : path[d_in] cubic with time, "
                                      "unit_increments\n"));
}
