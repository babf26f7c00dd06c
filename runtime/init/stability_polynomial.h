// The stability polynomial R(z) of an explicit Runge–Kutta method.
//
// Applied to y' = lambda y, one step of an explicit RK method multiplies y by
// R(z), z = h lambda, with
//     R(z) = 1 + sum_{k=1..s} (b^T A^{k-1} 1) z^k
// (Hairer & Wanner, Solving ODEs II, Sec. IV.2, Eq. 2.4 expanded for a
// strictly lower-triangular A). The region of absolute stability is
// |R(z)| <= 1. For the s = p <= 4 methods (euler, midpoint, heun, rk3, rk4)
// this is the truncated exponential of paper 004 Eq. 3,
// 1 + z + z^2/2 + ... + z^p/p!; for methods with more stages than order
// (bosh3, dopri5, tsit5) it is the method's own polynomial, which is what
// "the stability region of the chosen solver" means for them.
#pragma once

#include <complex>
#include <vector>

#include "runtime/solvers/tableau.h"

namespace plastic::rt::init_detail {

/// Coefficients c_0 .. c_s of R(z) (c_0 = 1), trailing zeros trimmed.
std::vector<double> stability_polynomial(const ButcherTableau& tableau);

/// |R(z)| by Horner's rule.
double amplification(const std::vector<double>& coefficients, std::complex<double> z);

} // namespace plastic::rt::init_detail
