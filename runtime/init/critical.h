// Critical initialisation of (gated) neural ODEs — Kim, Can & Krishnamurthy
// (paper 003), Sec. 4 and Appendix A.
//
// For the leaky nODE  h' = -h + F(h, x)  with F an L-layer MLP
// (App. A Eqs. 7–11: a^1 = W^0 h + U x + b^0, a^{l+1} = W^l phi(a^l) + b^l,
// F = a^L, so L weight matrices W^0 .. W^{L-1}), the weights are drawn
//     W^l_ij ~ N(0, sigma_w*^2 / N_l)                  (Sec. 4 Eq. 5, Kaiming
//                                                       scaling App. A Eq. 14)
// with N_l the layer's input width (fan_in) and, for ReLU in the wide limit,
//     sigma_w* = sqrt(2^(1 - 1/L))                      (Sec. 4; App. A Eq. 60)
// which puts the spectral radius of the input-output Jacobian at 1 (Eq. 59
// with alpha = beta = 0: the edge of chaos). Biases: App. H.2–H.4 ("biases were
// always initialized with a zero-mean Gaussian with variance 1e-6"), i.e.
// N(0, 1e-6) — Eq. 43 assumes biases close to zero for the zero fixed point.
//
// Table convention (runtime/abi.h): args[0] = sigma_w (0 -> Eq. 60),
// args[1] = L. When args[1] is 0 and args[0] is 0, L is the number of rank >= 2
// tensors of kind critical in the parameter's init_group (the MLP's layers).
// A tensor of rank <= 1 is a bias vector b^l (Eq. 5 concerns the matrices W^l,
// which have two indices) and gets the App. H bias distribution.
// The paper pairs this initialisation with tanh as the final nonlinearity of
// F (Sec. 6 / App. H.1); that is the model's choice, not the initialiser's.
#pragma once

#include <cstdint>
#include <span>

#include "runtime/abi.h"
#include "runtime/support/rng.h"
#include "runtime/support/train_error.h"

namespace plastic::rt::init_detail {

/// Bias variance of App. H.2–H.4.
inline constexpr double kCriticalBiasVariance = 1e-6;

/// sigma_w* of App. A Eq. 60 (Kaiming scaling) for an L-layer MLP.
double critical_sigma_w(int64_t layers);

/// Fills a critical parameter. `group_layers` = number of rank >= 2 critical
/// tensors in its init_group (0 when it has none); used when args[1] is 0.
Status<TrainError> fill_critical(const plastic_param& p, int64_t group_layers, Rng& rng,
                                 std::span<double> out);

} // namespace plastic::rt::init_detail
