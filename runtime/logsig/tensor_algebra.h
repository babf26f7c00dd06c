// The truncated tensor algebra T^N(R^d) on flat arrays: the arithmetic under
// signatures and log-signatures.
//
// An element is its levels 1..N concatenated, level k holding d^k
// coefficients in row-major word order (first letter most significant,
// signatory's layout); the scalar (level-0) term is implicit and passed
// explicitly where it matters: 1 for group-like elements (signatures), 0 for
// Lie elements (log-signatures). Products are truncated at level N.
//
// The hot operation is sig ← sig ⊗ exp(Δ) for one linear segment with
// increment Δ (Chen's identity), done in place in O(d^N) with a Horner
// scheme and a scratch of d^(N-1) doubles, so a whole path costs
// O(segments · d^N) with no allocation.
#pragma once

#include <cstddef>
#include <vector>

#include "runtime/paths/path_error.h"

namespace plastic::rt {

/// Ok if T^N(R^d) can be built: d >= 1, 1 <= N <= 12, and the algebra fits
/// in memory addressing (Σ d^k <= 2^31); otherwise why not.
Status<PathError> check_tensor_shape(int channels, int depth);

/// Sizes and level offsets of T^N(R^d) without its scalar term.
class TensorShape {
public:
  /// Requires check_tensor_shape(channels, depth).ok() (else InternalError).
  TensorShape(int channels, int depth);

  int channels() const { return channels_; }
  int depth() const { return depth_; }
  /// Σ_{k=1..N} d^k.
  std::size_t size() const { return offset_.back(); }
  /// Start of level k (1 <= k <= N) in the flat array.
  std::size_t offset(int k) const { return offset_[static_cast<std::size_t>(k - 1)]; }
  /// d^k.
  std::size_t level_size(int k) const { return offset_[static_cast<std::size_t>(k)] - offset(k); }

private:
  int channels_;
  int depth_;
  std::vector<std::size_t> offset_; // offset_[k-1] = start of level k; back() = size
};

/// sig ← sig ⊗ exp(delta) for a group-like `sig` (implicit scalar 1) and an
/// increment delta ∈ R^d: Chen's identity for appending one linear segment.
/// `scratch` holds >= d^(N-1) doubles. Starting from sig = 0 (the identity)
/// this yields exp(delta), the signature of the segment.
void mul_exp_segment(const TensorShape& shape, double* sig, const double* delta, double* scratch);

/// out = (a0 + a) ⊗ (b0 + b) truncated, without its scalar a0·b0. `out`
/// must not alias a or b.
void tensor_mul(const TensorShape& shape, double a0, const double* a, double b0, const double* b,
                double* out);

/// out = log(1 + x) = Σ_{n=1..N} (-1)^(n+1) x^n / n for a group-like element
/// 1 + x. `scratch` holds >= 2·size() doubles; out must not alias x.
void tensor_log(const TensorShape& shape, const double* x, double* out, double* scratch);

/// out = exp(y) - 1 = Σ_{n=1..N} y^n / n! for y with zero scalar term (a Lie
/// element, e.g. an expanded log-signature). `scratch` holds >= 2·size()
/// doubles; out must not alias y.
void tensor_exp(const TensorShape& shape, const double* y, double* out, double* scratch);

} // namespace plastic::rt
