// Order conditions of every Butcher tableau in tableau_data.h.
//
// Rather than transcribing the 17 conditions up to order 5 by hand, the test
// enumerates all rooted trees up to order 6 and checks the Butcher condition
// sum_i b_i Phi_i(t) = 1/gamma(t) for each (Hairer, Nørsett & Wanner I,
// Theorem II.2.13). A method must satisfy every condition up to its declared
// order and violate at least one of the next order, so the declared order is
// exact; the embedded solution b̂ = b - e likewise for its embedded order.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "runtime/solvers/tableau.h"

namespace {

using plastic::rt::ButcherTableau;

/// A rooted tree in canonical form: children sorted by their canonical text.
struct Tree {
  std::vector<Tree> kids;
  std::string text() const {
    std::vector<std::string> parts;
    for (const Tree& k : kids)
      parts.push_back(k.text());
    std::sort(parts.begin(), parts.end());
    std::string s = "[";
    for (const std::string& p : parts)
      s += p;
    return s + "]";
  }
  int order() const {
    int n = 1;
    for (const Tree& k : kids)
      n += k.order();
    return n;
  }
  double gamma() const {
    double g = order();
    for (const Tree& k : kids)
      g *= k.gamma();
    return g;
  }
};

/// Every tree obtained by attaching one leaf to any node of `t`.
void grow(const Tree& t, std::vector<Tree>& out) {
  Tree with_leaf = t;
  with_leaf.kids.push_back(Tree{});
  out.push_back(with_leaf);
  for (size_t i = 0; i < t.kids.size(); ++i) {
    std::vector<Tree> grown;
    grow(t.kids[i], grown);
    for (Tree& g : grown) {
      Tree copy = t;
      copy.kids[i] = std::move(g);
      out.push_back(std::move(copy));
    }
  }
}

/// All rooted trees of order 1..max_order, grouped by order.
std::vector<std::vector<Tree>> trees_up_to(int max_order) {
  std::vector<std::vector<Tree>> by_order(static_cast<size_t>(max_order) + 1);
  by_order[1] = {Tree{}};
  for (int n = 2; n <= max_order; ++n) {
    std::set<std::string> seen;
    for (const Tree& t : by_order[static_cast<size_t>(n) - 1]) {
      std::vector<Tree> grown;
      grow(t, grown);
      for (Tree& g : grown)
        if (seen.insert(g.text()).second) by_order[static_cast<size_t>(n)].push_back(std::move(g));
    }
  }
  return by_order;
}

/// Phi_i(t) for every stage i: product over the children of (A Phi(child))_i.
/// With `magnitude`, the same sums over |a_ij| (a bound for their round-off).
std::vector<double> phi(const ButcherTableau& tab, const Tree& t, bool magnitude = false) {
  const int s = tab.stages;
  std::vector<double> out(static_cast<size_t>(s), 1.0);
  for (const Tree& k : t.kids) {
    const std::vector<double> pk = phi(tab, k, magnitude);
    for (int i = 0; i < s; ++i) {
      double acc = 0;
      for (int j = 0; j < s; ++j)
        acc += (magnitude ? std::abs(tab.A(i, j)) : tab.A(i, j)) * pk[static_cast<size_t>(j)];
      out[static_cast<size_t>(i)] *= acc;
    }
  }
  return out;
}

/// Largest |sum_i w_i Phi_i(t) - 1/gamma(t)| over the trees of order n, each
/// divided by the round-off scale of its sum, sum_i |w_i| Phi_i(|A|) + 1/gamma.
/// Coefficients that are exact up to rounding to double give O(1e-16); a
/// wrong digit gives O(1e-3) or more. (Tsit5's coefficients reach 13 in size,
/// so its raw residuals are ~1e-14 although every digit is right.)
double worst_residual(const ButcherTableau& tab, const std::vector<double>& w,
                      const std::vector<Tree>& trees) {
  double worst = 0;
  for (const Tree& t : trees) {
    const std::vector<double> p = phi(tab, t);
    const std::vector<double> pa = phi(tab, t, true);
    double sum = 0, scale = 1.0 / t.gamma();
    for (size_t i = 0; i < w.size(); ++i) {
      sum += w[i] * p[i];
      scale += std::abs(w[i]) * pa[i];
    }
    worst = std::max(worst, std::abs(sum - 1.0 / t.gamma()) / scale);
  }
  return worst;
}

} // namespace

TEST_CASE("rooted tree enumeration gives the known counts", "[tableau]") {
  const auto trees = trees_up_to(6);
  const size_t expected[] = {0, 1, 1, 2, 4, 9, 20}; // OEIS A000081
  for (int n = 1; n <= 6; ++n)
    CHECK(trees[static_cast<size_t>(n)].size() == expected[n]);
}

TEST_CASE("every tableau is well formed and satisfies its order conditions exactly", "[tableau]") {
  const auto trees = trees_up_to(6);
  const std::vector<std::string> expected_names = {"euler",  "midpoint", "heun",   "rk3",  "rk4",
                                                   "rk4_38", "bosh3",    "dopri5", "tsit5"};
  std::vector<std::string> names;
  for (const ButcherTableau& tab : plastic::rt::all_tableaus())
    names.emplace_back(tab.name);
  CHECK(names == expected_names);

  for (const ButcherTableau& tab : plastic::rt::all_tableaus()) {
    INFO("tableau " << tab.name);
    const size_t s = static_cast<size_t>(tab.stages);
    REQUIRE(tab.a.size() == s * s);
    REQUIRE(tab.b.size() == s);
    REQUIRE(tab.c.size() == s);
    CHECK(!tab.reference.empty());
    CHECK(plastic::rt::find_tableau(tab.name) == &tab);
    // Explicit: strictly lower triangular. Row sums equal the nodes.
    for (int i = 0; i < tab.stages; ++i) {
      double row = 0;
      for (int j = 0; j < tab.stages; ++j) {
        if (j >= i) CHECK(tab.A(i, j) == 0.0);
        row += tab.A(i, j);
      }
      CHECK(std::abs(row - tab.c[static_cast<size_t>(i)]) < 1e-14);
    }
    // FSAL: the last stage is the new solution, evaluated at t + h.
    if (tab.fsal) {
      CHECK(tab.c.back() == 1.0);
      CHECK(tab.b.back() == 0.0);
      for (int j = 0; j < tab.stages; ++j)
        CHECK(tab.A(tab.stages - 1, j) == tab.b[static_cast<size_t>(j)]);
    }
    // Order conditions of the propagated solution: all hold up to `order`, one fails after.
    for (int n = 1; n <= tab.order; ++n) {
      INFO("order condition group " << n);
      const double r = worst_residual(tab, tab.b, trees[static_cast<size_t>(n)]);
      INFO("residual " << r);
      CHECK(r < 1e-15);
    }
    if (tab.order < 6)
      CHECK(worst_residual(tab, tab.b, trees[static_cast<size_t>(tab.order) + 1]) > 1e-6);

    if (tab.adaptive()) {
      REQUIRE(tab.e.size() == s);
      REQUIRE(tab.embedded_order >= 1);
      std::vector<double> bhat(s);
      for (size_t i = 0; i < s; ++i)
        bhat[i] = tab.b[i] - tab.e[i];
      for (int n = 1; n <= tab.embedded_order; ++n) {
        INFO("embedded order condition group " << n);
        CHECK(worst_residual(tab, bhat, trees[static_cast<size_t>(n)]) < 1e-15);
      }
      CHECK(worst_residual(tab, bhat, trees[static_cast<size_t>(tab.embedded_order) + 1]) > 1e-6);
    } else {
      CHECK(tab.embedded_order == 0);
    }
  }
}
