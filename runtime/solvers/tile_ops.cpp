// The out-of-line tile loops (see tile_ops.h): those run over a whole state
// after every step, where the width of the machine's vectors matters. The
// runtime is built for the baseline x86-64 ISA so that model binaries run
// anywhere; `target_clones` adds AVX2 and AVX-512 versions that the loader
// picks on the machine at hand (an ifunc), so the check after every step
// does not run 4 floats at a time on a CPU that has 16.
#include "runtime/solvers/tile_ops.h"

#include <cmath>

namespace plastic::rt::tile {

namespace {

// Four independent accumulators keep the OR chain off the critical path.
// always_inline: the loop must be compiled inside each target clone.
template <class T> [[gnu::always_inline]] inline bool any_nonfinite_loop(size_t count, const T* x) {
  int b0 = 0, b1 = 0, b2 = 0, b3 = 0;
  size_t i = 0;
  for (; i + 4 <= count; i += 4) {
    b0 |= !std::isfinite(x[i]);
    b1 |= !std::isfinite(x[i + 1]);
    b2 |= !std::isfinite(x[i + 2]);
    b3 |= !std::isfinite(x[i + 3]);
  }
  for (; i < count; ++i)
    b0 |= !std::isfinite(x[i]);
  return (b0 | b1 | b2 | b3) != 0;
}

} // namespace

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PLASTIC_TILE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define PLASTIC_TILE_CLONES
#endif

PLASTIC_TILE_CLONES bool any_nonfinite(size_t count, const float* x) {
  return any_nonfinite_loop(count, x);
}

PLASTIC_TILE_CLONES bool any_nonfinite(size_t count, const double* x) {
  return any_nonfinite_loop(count, x);
}

} // namespace plastic::rt::tile
