// Butcher tableaus of the explicit Runge–Kutta methods Plastic knows.
//
// One source of truth shared by the runtime's generic RK engine (which calls
// a model's `field` kernel stage by stage) and by the compiler (which fuses
// all stages of one step into a single `step` kernel and differentiates it).
// Header-only on purpose: the compiler includes it without linking the
// runtime. A new explicit method is one more table here: its stages, order,
// coefficients and, for adaptive methods, the embedded error weights.
#pragma once

#include <span>
#include <string_view>
#include <vector>

namespace plastic::rt {

/// An explicit Runge–Kutta method: c_i, a_ij (strictly lower triangular),
/// b_j, and for embedded pairs the error weights e_j = b_j - b̂_j.
struct ButcherTableau {
  std::string_view name;  ///< DSL spelling: "rk4", "dopri5", ...
  int stages = 0;         ///< s
  int order = 0;          ///< order of the propagated solution
  int embedded_order = 0; ///< order of the error estimator's solution; 0 if none
  bool fsal = false;      ///< last stage evaluates f at the new point (First Same As Last)
  std::vector<double> a;  ///< s*s, row-major; a[i*s+j], zero for j >= i
  std::vector<double> b;  ///< s weights of the solution
  std::vector<double> c;  ///< s nodes
  std::vector<double> e;  ///< s error weights b - b̂; empty if not adaptive
  std::string_view reference;

  bool adaptive() const { return !e.empty(); }
  double A(int i, int j) const {
    return a[static_cast<size_t>(i) * static_cast<size_t>(stages) + static_cast<size_t>(j)];
  }
};

/// All tableaus, in a fixed order (fixed-step methods first).
std::span<const ButcherTableau> all_tableaus();

/// The tableau with DSL spelling `name`, or nullptr.
const ButcherTableau* find_tableau(std::string_view name);

} // namespace plastic::rt

#include "runtime/solvers/tableau_data.h"
