// The fixed-step grid t0 + j*h keeps moving far from t0: near t = 2^23 with
// h = 0.4 the rounded grid point t0 + j*h fell at or below t, the step was
// zero and the solve (and the memory plan's walk) stood still for ever.
#include <catch2/catch.hpp>

#include "runtime/solvers/timeline.h"

using plastic::rt::FixedGrid;
using plastic::rt::step_end;

TEST_CASE("the fixed-step grid advances across 2^23 with step 0.4", "[timeline]") {
  const FixedGrid grid{0.0, 0.4};
  const double end = 8388700;
  double t = 8388600; // a grid point, 24 steps before the point that stalled
  int steps = 0;
  while (t < end && steps < 1000) {
    const double t1 = step_end(t, grid.next(t, end) - t, end);
    REQUIRE(t1 > t);
    t = t1;
    ++steps;
  }
  CHECK(t == end);
  CHECK(steps >= 249);
  CHECK(steps <= 251);
}

TEST_CASE("the fixed-step grid walks back across 2^23 with step 0.4", "[timeline]") {
  const FixedGrid grid{0.0, 0.4};
  const double start = 8388600;
  double t = 8388700;
  int steps = 0;
  while (t > start && steps < 1000) {
    const double t1 = step_end(t, grid.prev(t, start) - t, start);
    REQUIRE(t1 < t);
    t = t1;
    ++steps;
  }
  CHECK(t == start);
  CHECK(steps >= 249);
  CHECK(steps <= 251);
}
