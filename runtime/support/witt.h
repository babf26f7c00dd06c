// Witt's formula: the dimension of the depth-N log-signature.
//
// The depth-N log-signature of a path in R^d lives in the free Lie algebra
// truncated at depth N, of dimension (paper 002, App. A)
//     β(d, N) = Σ_{k=1..N} (1/k) Σ_{i | k} μ(k/i) d^i,   μ the Möbius function.
// The front end needs it to give a log-signature path its drive size, the
// runtime to size the Lyndon basis it builds; both include this one header
// so the two can never disagree. Header-only and dependency-free: it sits in
// runtime/support/, which every layer may include.
#pragma once

#include <cstdint>

namespace plastic::support {

/// Möbius function μ(n) for n >= 1 (callers check the domain).
constexpr int mobius(std::int64_t n) {
  int result = 1;
  for (std::int64_t p = 2; p * p <= n; ++p) {
    if (n % p != 0) continue;
    n /= p;
    if (n % p == 0) return 0; // p² divides n
    result = -result;
  }
  if (n > 1) result = -result; // one prime factor left
  return result;
}

/// β(d, N) by Witt's formula, for d, N >= 1 (callers check the domain and
/// keep d^N within int64).
constexpr std::int64_t logsig_dim(std::int64_t channels, std::int64_t depth) {
  std::int64_t total = 0;
  for (std::int64_t k = 1; k <= depth; ++k) {
    std::int64_t sum = 0; // Σ_{i|k} μ(k/i) d^i, always divisible by k
    for (std::int64_t i = 1; i <= k; ++i)
      if (k % i == 0) {
        std::int64_t power = 1;
        for (std::int64_t j = 0; j < i; ++j)
          power *= channels;
        sum += mobius(k / i) * power;
      }
    total += sum / k;
  }
  return total;
}

static_assert(logsig_dim(2, 3) == 5 && logsig_dim(3, 2) == 6 && logsig_dim(4, 4) == 90);

} // namespace plastic::support
