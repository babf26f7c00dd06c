// A fixed-step solve's step count is checked before solving: too many steps
// (times in another unit than the step) and a step below the resolution of
// the times are refused naming the sample; adaptive solvers are left to
// their max_steps while solving.
#include <catch2/catch.hpp>

#include <limits>

#include "runtime/batch/step_count.h"
#include "runtime/solvers/tableau.h"

using namespace plastic;
using namespace plastic::rt;

namespace {

SolverOptions fixed(double step, int64_t max_steps = 0) {
  SolverOptions o;
  o.tableau = find_tableau("rk4");
  o.step = step;
  o.max_steps = max_steps;
  return o;
}

PreparedSample spanning(double t0, double t_end) {
  PreparedSample s;
  s.t0 = t0;
  s.t_end = t_end;
  return s;
}

} // namespace

TEST_CASE("a fixed-step solve within max_steps passes", "[step_count]") {
  CHECK(check_step_count(fixed(0.1), spanning(0, 10000), "s"));         // 1e5 steps: the limit
  CHECK(check_step_count(fixed(0.1, 200000), spanning(0, 20000), "s")); // raised
}

TEST_CASE("a fixed-step solve beyond max_steps is refused with the limit that covers it",
          "[step_count]") {
  Status<SolveFailure> s = check_step_count(fixed(0.1), spanning(0, 10001), "sample 'a'");
  REQUIRE_FALSE(s);
  CHECK_THAT(s.error().message, Catch::Contains("sample 'a': the series runs from t=0 to "
                                                "t=10001: 1e+05 steps of rk4 at step 0.1, more "
                                                "than max_steps (100000)"));
  CHECK_THAT(s.error().advice, Catch::Contains("`solve rk4 step 0.1 max_steps 120000`"));
}

TEST_CASE("an absurd or infinite span is refused without a limit to raise", "[step_count]") {
  for (double end : {1e307, std::numeric_limits<double>::infinity()}) {
    Status<SolveFailure> s = check_step_count(fixed(4), spanning(-1e307, end), "s");
    REQUIRE_FALSE(s);
    CHECK_THAT(s.error().advice, Catch::Contains("check the data's time column"));
    CHECK_THAT(s.error().advice, Catch::Contains("take a larger step"));
  }
}

TEST_CASE("a step lost in the rounding of the times is refused", "[step_count]") {
  Status<SolveFailure> s =
      check_step_count(fixed(1e-4, 1000000000), spanning(1.7e9, 1.7e9 + 19), "s");
  REQUIRE_FALSE(s);
  CHECK_THAT(s.error().message, Catch::Contains("below the resolution of its times"));
}

TEST_CASE("adaptive solvers are not counted before solving", "[step_count]") {
  SolverOptions o;
  o.tableau = find_tableau("dopri5");
  CHECK(check_step_count(o, spanning(0, 1e300), "s"));
}
