// Missing values (NaN): each scheme fills them as its torchcde counterpart
// does, checked on small cases worked out by hand in the comments.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "runtime/paths/interpolation.h"
#include "runtime/paths/missing.h"

using namespace plastic::rt;

namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();
}

TEST_CASE("fill_linear: ends from the nearest observation, interior linear in time",
          "[paths][missing]") {
  const std::vector<double> t{0, 1, 2, 4, 5};
  std::vector<double> x{kNaN, 1, kNaN, 3, kNaN};
  fill_linear(t, x);
  // Interior t=2 lies a third of the way from t=1 to t=4: 1 + (1/3)·2.
  CHECK(x == std::vector<double>{1, 1, 1.0 + 2.0 / 3.0, 3, 3});
  std::vector<double> none{kNaN, kNaN, kNaN, kNaN, kNaN};
  fill_linear(t, none);
  CHECK(none == std::vector<double>{0, 0, 0, 0, 0});
}

TEST_CASE("fill_forward: carry forward / leading run back-filled or given", "[paths][missing]") {
  std::vector<double> x{kNaN, kNaN, 2, kNaN, 5, kNaN};
  auto y = x;
  fill_forward(x);
  CHECK(x == std::vector<double>{2, 2, 2, 2, 5, 5});
  fill_forward(y, -1.0);
  CHECK(y == std::vector<double>{-1, -1, 2, 2, 5, 5});
  std::vector<double> none{kNaN, kNaN};
  auto none2 = none;
  fill_forward(none);
  CHECK(none == std::vector<double>{0, 0});
  fill_forward(none2, 7.0);
  CHECK(none2 == std::vector<double>{7, 7});
}

TEST_CASE("natural spline with NaN: ends filled, interior NaN is not a knot",
          "[paths][missing][cubic]") {
  // Data at t = 0..4: (NaN, 0, NaN, 2, 5). torchcde fills the leading run,
  // giving knots (0,0), (1,0), (3,2), (4,5); t = 2 is not a knot (a linear
  // fill would have put a knot (2, 1) there). By hand, with the
  // second-derivative form (M_0 = M_3 = 0, h = 1, 2, 1):
  //   6 M_1 + 2 M_2 = 6·((2-0)/2 - 0)       = 6
  //   2 M_1 + 6 M_2 = 6·((5-2)/1 - (2-0)/2) = 12   ⇒ M_1 = 3/8, M_2 = 15/8.
  // On [1, 3] (h = 2): S(t) = M_1 (3-t)³/12 + M_2 (t-1)³/12
  //                          + (0/2 - M_1/3)(3-t) + (2/2 - M_2/3)(t-1), so
  //   S(2)  = (3/8 + 15/8)/12 - 1/8 + 3/8             = 7/16,
  //   S'(2) = -M_1/4 + M_2/4 + 1/8 + 3/8              = 7/8.
  // On [0, 1] (h = 1): S(0.5) = M_1·0.125/6 - (M_1/6)·0.5 = -9/384.
  const std::vector<double> t{0, 1, 2, 3, 4};
  const std::vector<double> x{kNaN, 0, kNaN, 2, 5};
  const CubicPath p = natural_cubic_path(t, x, 1).value();
  CHECK(p.value(2.0, 0) == Approx(7.0 / 16.0).margin(1e-14));
  CHECK(p.derivative(2.0, 0) == Approx(7.0 / 8.0).margin(1e-14));
  CHECK(p.value(0.5, 0) == Approx(-9.0 / 384.0).margin(1e-14));
  CHECK(p.value(0.0, 0) == Approx(0.0).margin(1e-14));
  CHECK(p.value(3.0, 0) == Approx(2.0).margin(1e-14));
  CHECK(p.value(4.0, 0) == Approx(5.0).margin(1e-14));
  // A trailing NaN run is filled with the last observation, as a knot.
  const std::vector<double> tail{0, 1, 2, 3, kNaN};
  const CubicPath q = natural_cubic_path(t, tail, 1).value();
  CHECK(q.value(4.0, 0) == Approx(3.0).margin(1e-14));
}

TEST_CASE("channels are filled independently / a never-observed channel is zero",
          "[paths][missing]") {
  const std::vector<double> t{0, 1, 2, 3};
  // channel 0 complete, channel 1 never observed, channel 2 missing inside.
  const std::vector<double> x{0, kNaN, 5,    //
                              1, kNaN, kNaN, //
                              4, kNaN, 7,    //
                              9, kNaN, 8};
  for (auto scheme :
       {Interpolation::natural_cubic, Interpolation::hermite, Interpolation::linear}) {
    INFO(interpolation_name(scheme));
    const CubicPath p = make_path(scheme, t, x, 3).value();
    const CubicPath alone = make_path(scheme, t, std::vector<double>{0, 1, 4, 9}, 1).value();
    for (double s = 0.0; s <= 3.0; s += 0.25) {
      CHECK(p.value(s, 0) == Approx(alone.value(s, 0)).margin(1e-14));
      CHECK(p.value(s, 1) == 0.0);
      CHECK(p.derivative(s, 1) == 0.0);
      CHECK(std::isfinite(p.value(s, 2)));
    }
  }
  // Linear and Hermite see channel 2 as (5, 6, 7, 8): linear data, reproduced.
  const CubicPath lin = linear_path(t, x, 3).value();
  const CubicPath her = hermite_path(t, x, 3).value();
  CHECK(lin.value(1.0, 2) == Approx(6.0));
  CHECK(her.value(1.5, 2) == Approx(6.5));
}

TEST_CASE("rectilinear path: time leads, features follow, forward fill",
          "[paths][missing][rectilinear]") {
  // Observations at τ = 0, 1, 3 of one feature (10, NaN, 30). With time
  // prepended as channel 0, torchcde's rows at s = 0..4 are
  //   (0,10) (1,10) (1,10) (3,10) (3,30)  — the NaN forward-filled to 10.
  const std::vector<double> t{0, 1, 3};
  const std::vector<double> x{10, kNaN, 30};
  const CubicPath p = rectilinear_path(t, x, 1).value();
  REQUIRE(p.channels() == 2);
  REQUIRE(p.intervals() == 4);
  CHECK(p.t_begin() == 0.0);
  CHECK(p.t_end() == 4.0);
  const double expect[5][2] = {{0, 10}, {1, 10}, {1, 10}, {3, 10}, {3, 30}};
  for (int s = 0; s < 5; ++s) {
    CHECK(p.value(s, 0) == Approx(expect[s][0]));
    CHECK(p.value(s, 1) == Approx(expect[s][1]));
  }
  CHECK(p.value(0.5, 0) == Approx(0.5));
  CHECK(p.value(3.5, 1) == Approx(20.0));
  CHECK(p.derivative(2.5, 0) == Approx(2.0)); // time moving, feature held
  CHECK(p.derivative(2.5, 1) == Approx(0.0));
  CHECK(p.derivative(3.5, 0) == Approx(0.0)); // feature moving, time held
  CHECK(p.derivative(3.5, 1) == Approx(20.0));

  // An explicit time channel gives the same path; a leading NaN is
  // back-filled (torchcde warns that this is not causal).
  const std::vector<double> with_time{0, kNaN, 1, kNaN, 3, 30};
  const CubicPath q = rectilinear_path(t, with_time, 2, 0).value();
  CHECK(q.value(1.5, 1) == Approx(30.0));
  CHECK(q.value(1.5, 0) == Approx(1.0));
  const std::vector<double> bad_time{0, 1, kNaN, 2, 3, 3};
  CHECK(rectilinear_path(t, bad_time, 2, 0).describe() ==
        "rectilinear interpolation: the time channel 0 is missing at observation 1");
}

TEST_CASE("two observations give a line / one observation a constant", "[paths][missing]") {
  const std::vector<double> t2{1.0, 3.0};
  const std::vector<double> x2{2.0, 6.0};
  const std::vector<double> t3{0.0, 1.0, 2.0};
  const std::vector<double> once{kNaN, 5.0, kNaN};
  for (auto scheme :
       {Interpolation::natural_cubic, Interpolation::hermite, Interpolation::linear}) {
    INFO(interpolation_name(scheme));
    const CubicPath line = make_path(scheme, t2, x2, 1).value();
    CHECK(line.value(2.5, 0) == Approx(5.0).margin(1e-14));
    CHECK(line.derivative(1.2, 0) == Approx(2.0).margin(1e-14));
    const CubicPath flat = make_path(scheme, t3, once, 1).value();
    for (double s : {0.0, 0.4, 1.0, 1.7, 2.0}) {
      CHECK(flat.value(s, 0) == Approx(5.0).margin(1e-14));
      CHECK(flat.derivative(s, 0) == Approx(0.0).margin(1e-14));
    }
  }
}
