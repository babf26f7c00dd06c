// The out-of-line tile loops (see tile_ops.h): those run over a whole state
// after every step, where the width of the machine's vectors matters. The
// runtime is built for the baseline x86-64 ISA so that model binaries run
// anywhere; `target_clones` adds AVX2 and AVX-512 versions that the loader
// picks on the machine at hand (an ifunc), so the check after every step
// does not run 4 floats at a time on a CPU that has 16.
#include "runtime/solvers/tile_ops.h"

#include <algorithm>
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

// Element-major, one accumulator per lane: the inner loop runs over
// contiguous lanes and vectorises (the division too), while each lane still
// sums its elements in the order i = 0, 1, ..., so the norm is the one a
// lane-by-lane loop gives. (Lane by lane, the loop read with a stride of L
// and ran one scalar division per element: as long as the dopri5 step
// kernel itself, and the adjoint's backward solve runs it over 2n.)
template <class T>
[[gnu::always_inline]] inline void rms_error_norm_loop(int64_t n, int lanes, LaneMask mask,
                                                       const T* err, const T* z0, const T* z1,
                                                       double rtol, double atol, LaneMax& out) {
  constexpr int kMaxLanes = 64; // a LaneMask's bits; ModelView refuses wider tiles
  double sum[kMaxLanes] = {};
  double poison[kMaxLanes] = {}; // b - b: 0 while finite, NaN from the first inf or NaN
  for (int64_t i = 0; i < n; ++i) {
    const T* e = err + i * lanes;
    const T* a = z0 + i * lanes;
    const T* b = z1 + i * lanes;
    for (int l = 0; l < lanes; ++l) {
      const double bl = b[l];
      poison[l] += bl - bl;
      const double scale =
          atol + rtol * std::max(std::abs(static_cast<double>(a[l])), std::abs(bl));
      const double r = static_cast<double>(e[l]) / scale;
      sum[l] += r * r;
    }
  }
  for (int l = 0; l < lanes; ++l)
    if (has_lane(mask, l))
      out.take(poison[l] == 0 ? std::sqrt(sum[l] / static_cast<double>(n)) : INFINITY, l);
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

PLASTIC_TILE_CLONES void rms_error_norm(int64_t n, int lanes, LaneMask mask, const float* err,
                                        const float* z0, const float* z1, double rtol, double atol,
                                        LaneMax& out) {
  rms_error_norm_loop(n, lanes, mask, err, z0, z1, rtol, atol, out);
}

PLASTIC_TILE_CLONES void rms_error_norm(int64_t n, int lanes, LaneMask mask, const double* err,
                                        const double* z0, const double* z1, double rtol,
                                        double atol, LaneMax& out) {
  rms_error_norm_loop(n, lanes, mask, err, z0, z1, rtol, atol, out);
}

} // namespace plastic::rt::tile
