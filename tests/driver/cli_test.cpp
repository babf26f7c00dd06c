// The `plastic` command as a user runs it: exit codes, summaries, JSON,
// the AST printer, and diagnostics on stderr.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/driver/cli_support.h"

using namespace plastic::test;

TEST_CASE("check prints a summary and exits 0 on a good model", "[cli]") {
  Run r = run("check " + src("examples/fwp_delta_cde.ode"));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("parameters"));
  CHECK_THAT(r.out, Catch::Contains("solver      rk4"));
  CHECK(r.err.empty());
}

TEST_CASE("check of a folder checks every model in it", "[cli]") {
  Run r = run("check " + src("examples"));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("models checked clean"));
}

TEST_CASE("a model with errors exits 1 with file:line:col diagnostics", "[cli]") {
  Run r = run("check " + src("tests/dsl/bad/contract_mismatch.ode"));
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("contract_mismatch.ode:"));
  CHECK_THAT(r.err, Catch::Contains("error: shapes"));
  CHECK_THAT(r.err, Catch::Contains("^"));
}

TEST_CASE("usage errors exit 2", "[cli]") {
  CHECK(run("").exit_code == 2);
  CHECK(run("frobnicate").exit_code == 2);
  CHECK(run("check " + src("examples/fwp_delta_cde.ode") + " --set d_head").exit_code == 2);
  CHECK(run("check " + src("examples/fwp_delta_cde.ode") + " --set d_head=abc").exit_code == 2);
  Run unknown = run("check " + src("examples/fwp_delta_cde.ode") + " --set d_hed=3");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.err, Catch::Contains("did you mean 'd_head'?"));
}

TEST_CASE("a missing file is an input error", "[cli]") {
  Run r = run("check /nonexistent/model.ode");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("cannot read '/nonexistent/model.ode'"));
}

TEST_CASE("check --json is valid JSON with the summary fields", "[cli]") {
  Run r = run("check --json --set d_head=8 " + src("examples/fwp_delta_cde.ode"));
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.is_array());
  REQUIRE(j.size() == 1);
  CHECK(j[0]["dims"]["d_head"] == 8);
  CHECK(j[0]["parameter_count"].get<int64_t>() > 0);
  CHECK(j[0]["solver"]["method"] == "rk4");
  CHECK(j[0]["states"][0]["shape"].back() == 8);
}

TEST_CASE("emit --ast prints source that checks like the original", "[cli]") {
  Run r = run("emit --ast " + src("examples/fwp_delta_cde.ode"));
  REQUIRE(r.exit_code == 0);
  std::string printed = capture_file(".ode");
  std::ofstream(printed) << r.out;
  Run again = run("check --json " + printed);
  Run original = run("check --json " + src("examples/fwp_delta_cde.ode"));
  REQUIRE(again.exit_code == 0);
  auto a = nlohmann::json::parse(again.out)[0], b = nlohmann::json::parse(original.out)[0];
  a.erase("file");
  b.erase("file");
  CHECK(a == b);
}

TEST_CASE("plastic --version and --help", "[cli]") {
  Run v = run("--version");
  CHECK(v.exit_code == 0);
  CHECK_THAT(v.out, Catch::Contains("plastic "));
  Run h = run("--help");
  CHECK(h.exit_code == 0);
  CHECK_THAT(h.out, Catch::Contains("check"));
}
