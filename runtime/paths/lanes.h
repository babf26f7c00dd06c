// Filling lane-interleaved input buffers for compiled kernels.
//
// Kernels work on a tile of L samples stored element-major: element i of
// sample (lane) l lives at buf[i*L + l], so every scalar operation of the
// vector field is one SIMD operation across the tile (DESIGN.md,
// "Performance design"). At each stage time t the runtime fills such a buffer
// with x(t) or x'(t) of the L series of the tile; this is that loop. It works
// for any path type with the CubicPath evaluation interface (CubicPath, and
// LogSigPath for neural RDE inputs), and writes float or double.
#pragma once

#include <cstddef>
#include <span>

#include "runtime/paths/locate.h"
#include "runtime/support/internal_error.h"

namespace plastic::rt {

/// Writes quantity q of lanes[l] at time t to out[i*L + l] for every channel
/// i < channels and lane l < L = lanes.size(). A null lane (padding of a
/// partial tile) is written as zeros. `hints`, if non-null, holds one
/// interval hint per lane (initialise to -1) and is updated, so that a
/// solver sweeping t forward finds each interval in O(1). Every path has
/// `channels` channels (the batch runtime sizes buffers from the paths it
/// built; a mismatch is an InternalError).
template <class PathT, class T>
void fill_lanes(std::span<const PathT* const> lanes, int channels, double t, Quantity q, T* out,
                Side side = Side::left, int* hints = nullptr) {
  const std::ptrdiff_t width = static_cast<std::ptrdiff_t>(lanes.size());
  for (std::ptrdiff_t l = 0; l < width; ++l) {
    const PathT* path = lanes[static_cast<std::size_t>(l)];
    if (path == nullptr) {
      for (int i = 0; i < channels; ++i)
        out[i * width + l] = T(0);
      continue;
    }
    PLASTIC_CHECK(path->channels() == channels, "lane {} has {} channels, the buffer expects {}", l,
                  path->channels(), channels);
    path->evaluate(t, q, out + l, width, side, hints ? hints + l : nullptr);
  }
}

} // namespace plastic::rt
