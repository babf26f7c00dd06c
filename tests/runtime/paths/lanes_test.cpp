// Interval lookup (with and without hints) and the lane-interleaved fill the
// runtime hands to compiled kernels.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "runtime/paths/interpolation.h"
#include "runtime/paths/lanes.h"
#include "runtime/support/internal_error.h"

using namespace plastic::rt;

TEST_CASE("locate_interval: knots, ends, sides", "[paths][locate]") {
  const std::vector<double> k{0.0, 1.0, 2.5, 4.0};
  CHECK(locate_interval(k, -3.0) == 0);
  CHECK(locate_interval(k, 0.0, Side::left) == 0);
  CHECK(locate_interval(k, 0.0, Side::right) == 0);
  CHECK(locate_interval(k, 0.5) == 0);
  CHECK(locate_interval(k, 1.0, Side::left) == 0);
  CHECK(locate_interval(k, 1.0, Side::right) == 1);
  CHECK(locate_interval(k, 2.5, Side::left) == 1);
  CHECK(locate_interval(k, 2.5, Side::right) == 2);
  CHECK(locate_interval(k, 4.0, Side::left) == 2);
  CHECK(locate_interval(k, 4.0, Side::right) == 2);
  CHECK(locate_interval(k, 9.0) == 2);
}

TEST_CASE("locate_interval with hints agrees with the binary search", "[paths][locate]") {
  std::vector<double> k{0.0};
  for (int i = 1; i < 50; ++i)
    k.push_back(k.back() + 0.1 + 0.05 * (i % 3));
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, k.back() + 1.0);
  for (Side side : {Side::left, Side::right}) {
    int hint = -1;
    for (double t = -0.5; t < k.back() + 0.5; t += 0.013) { // monotone sweep
      const int got = locate_interval(k, t, side, hint);
      CHECK(got == locate_interval(k, t, side));
      hint = got;
    }
    for (double knot : k)
      CHECK(locate_interval(k, knot, side, hint) == locate_interval(k, knot, side));
    for (int i = 0; i < 200; ++i) { // random queries with stale hints
      const double t = u(rng);
      const int stale = static_cast<int>(rng() % 60) - 5;
      CHECK(locate_interval(k, t, side, stale) == locate_interval(k, t, side));
    }
  }
}

TEST_CASE("fill_lanes writes element i of lane l at [i*L + l]", "[paths][lanes]") {
  const int c = 3;
  const std::vector<double> t{0, 1, 2, 3, 4};
  std::vector<CubicPath> paths;
  for (int s = 0; s < 3; ++s) {
    std::vector<double> x;
    for (int i = 0; i < 5 * c; ++i)
      x.push_back(std::sin(0.7 * i + s));
    paths.push_back(natural_cubic_path(t, x, c).value());
  }
  // Lane 2 is padding (null) in this partial tile of L = 4.
  const std::vector<const CubicPath*> lanes{&paths[0], &paths[1], nullptr, &paths[2]};
  const int L = static_cast<int>(lanes.size());
  std::vector<double> out(static_cast<std::size_t>(c * L), -99.0);
  std::vector<float> outf(static_cast<std::size_t>(c * L), -99.0f);
  std::vector<int> hints(static_cast<std::size_t>(L), -1);
  for (double time : {0.3, 1.7, 2.0, 3.9}) {
    for (Quantity q : {Quantity::value, Quantity::derivative}) {
      fill_lanes<CubicPath>(lanes, c, time, q, out.data(), Side::left, hints.data());
      fill_lanes<CubicPath>(lanes, c, time, q, outf.data());
      for (int l = 0; l < L; ++l)
        for (int i = 0; i < c; ++i) {
          double expect = 0.0;
          if (lanes[l])
            expect =
                q == Quantity::value ? lanes[l]->value(time, i) : lanes[l]->derivative(time, i);
          CHECK(out[i * L + l] == Approx(expect).margin(1e-15));
          CHECK(outf[i * L + l] == Approx(expect).margin(1e-6));
        }
    }
  }
  const std::vector<double> x1{0, 1, 2, 3, 4};
  const CubicPath narrow = linear_path(t, x1, 1).value();
  const std::vector<const CubicPath*> bad{&paths[0], &narrow};
  CHECK_THROWS_AS(fill_lanes<CubicPath>(bad, c, 0.5, Quantity::value, out.data()),
                  plastic::InternalError);
}
