// Gradient clipping: by global norm (torch.nn.utils.clip_grad_norm_) and by
// value (torch.nn.utils.clip_grad_value_), on the flat gradient vector.
//
// clip_grad_norm: total = ||g||_p over all elements (p = 2 by default, inf
// allowed); coef = max_norm / (total + 1e-6); if coef < 1, g *= coef. The
// norm of the flat vector equals torch's norm of per-tensor norms. Two
// deliberate differences from torch, both only for non-finite or huge
// values: the 2-norm is computed with scaling, so a finite gradient whose
// squares overflow still gets its true norm (torch would report inf and
// zero the gradient); and when the norm is inf or NaN the gradient is left
// untouched and the non-finite norm is returned, so the caller can skip the
// step (torch would multiply the gradient by 0 or NaN).
#pragma once

#include <span>

namespace plastic::rt {

/// Scales `grads` so that their p-norm is at most `max_norm`; returns the
/// norm before clipping. norm_type: any p >= 1, or +inf for the max norm.
template <class T>
double clip_grad_norm(std::span<T> grads, double max_norm, double norm_type = 2.0);

/// The p-norm of `grads` (as clip_grad_norm measures it), without changing them.
template <class T> double grad_norm(std::span<const T> grads, double norm_type = 2.0);

/// Clamps every gradient element into [-clip_value, clip_value] (NaN stays NaN).
template <class T> void clip_grad_value(std::span<T> grads, double clip_value);

} // namespace plastic::rt
