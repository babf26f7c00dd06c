// The model ABI header: it must compile as plain C (generated AOT headers and
// C hosts include it), and the runtime's validation accepts the hand-written
// tables of the tests.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "runtime/abi.h"
#include "runtime/solvers/model_view.h"
#include "tests/runtime/solvers/test_models.h"

TEST_CASE("abi.h compiles as C99 without warnings", "[abi]") {
  if (std::system("command -v cc > /dev/null 2>&1") != 0) {
    WARN("no C compiler on PATH; skipped");
    return;
  }
  const std::string cmd =
      std::string("cc -std=c99 -Wall -Wextra -pedantic -Werror -fsyntax-only -x c ") +
      PLASTIC_SOURCE_DIR + "/runtime/abi.h";
  CHECK(std::system(cmd.c_str()) == 0);
}

TEST_CASE("the test models are valid ABI tables", "[abi]") {
  using namespace plastic;
  CHECK(rt::validate_model(*test::linear_model<double>(4, 3).get(), PLASTIC_F64).ok());
  CHECK(rt::validate_model(*test::delta_model<float>(8).get(), PLASTIC_F32).ok());
  CHECK(rt::validate_model(*test::quadratic_model<double>(1).get(), PLASTIC_F64).ok());
  auto bad = test::delta_model<double>(2);
  bad.table.lanes = 65;
  CHECK(rt::validate_model(*bad.get(), PLASTIC_F64).error().kind == rt::FailureKind::InvalidModel);
  bad.table.lanes = 2;
  bad.slots[0].channels = 1; // slots no longer cover u
  CHECK(!rt::validate_model(*bad.get(), PLASTIC_F64).ok());
}
