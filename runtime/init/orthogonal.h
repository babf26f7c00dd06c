// (Semi-)orthogonal matrices: torch.nn.init.orthogonal_, batched.
//
// A rows x cols Gaussian matrix (transposed when wide) is QR-factorised and Q
// is multiplied by sign(diag R), which makes Q Haar-distributed (Mezzadri,
// "How to generate random matrices from the classical compact groups",
// Notices AMS 2007) — the construction torch uses and the one paper 004
// (Sec. 4.1, after Eq. 10) prescribes for its random orthogonal Pi_i.
// Tall results have orthonormal columns (W^T W = gain^2 I), wide ones
// orthonormal rows (W W^T = gain^2 I).
#pragma once

#include <cstdint>
#include <span>

#include "runtime/abi.h"
#include "runtime/support/rng.h"
#include "runtime/support/train_error.h"

namespace plastic::rt::init_detail {

/// One rows x cols semi-orthogonal matrix times `gain`, row-major into out
/// (rows*cols elements).
void semi_orthogonal(int64_t rows, int64_t cols, double gain, Rng& rng, std::span<double> out);

/// PLASTIC_INIT_ORTHOGONAL: every matrix over the last two dims, batched over
/// the leading ones; args[0] = gain (0 -> 1). Rank < 2 is an error.
Status<TrainError> fill_orthogonal(const plastic_param& p, Rng& rng, std::span<double> out);

} // namespace plastic::rt::init_detail
