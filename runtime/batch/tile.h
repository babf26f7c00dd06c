// Packing samples into tiles of L lanes: the per-lane final times, the union
// of the lanes' observation times with a lane mask per observation, the
// union of their knots, and the lane-interleaved target blocks.
//
// A batch's sample list is cut into consecutive tiles of L = model.lanes
// samples, in the order given. The last tile is padded by repeating its
// first sample: a padding lane ends at t0 (so it is frozen from the start,
// enters no error norm) and is masked out of every observation, so it adds
// no loss and no gradient, but it is fed real, finite inputs.
//
// Series of unequal lengths share a tile: each lane has its own t_end; an
// observation exists at every time some lane is observed, and `lanes` says
// which; `loss_lanes` which of those carry a target there. Times that agree
// to 1e-12 (relative) are one observation. All lanes must start at the same
// t0 (PreparedData's align_start makes that so).
//
// Note: a lane's solution depends on the other lanes of its tile when the
// solver is adaptive (one step size per tile) or when another lane's event
// falls between fixed grid points (events split grid cells). With fixed
// steps and data times on the grid, a sample's result is independent of its
// tile up to rounding.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "runtime/batch/prepared_data.h"
#include "runtime/solvers/problem.h"

namespace plastic::rt {

struct TileObservation {
  double t = 0;
  LaneMask lanes = 0;      ///< lanes observed here (output read, jump applied)
  LaneMask loss_lanes = 0; ///< lanes with a target here (subset of lanes)
  bool jump = false;
};

/// Where the L lanes of one tile come from and when they are observed.
struct TileLayout {
  int lanes = 0;
  std::vector<int64_t> samples; ///< L data set indices; padding lanes repeat samples[0]
  LaneMask real = 0;            ///< lanes holding a sample of the batch
  double t0 = 0;
  std::vector<double> t_end; ///< L final times; padding lanes end at t0
  std::vector<TileObservation> observations;
  std::vector<int32_t> rows; ///< [k*L + l]: lane l's index into its sample's observations, or -1
  std::vector<double> knots; ///< union of the lanes' knots, sorted

  int32_t row(size_t k, int lane) const { return rows[k * static_cast<size_t>(lanes) + lane]; }
};

/// Number of tiles for `samples` samples of `lanes` lanes.
inline size_t tile_count(size_t samples, int lanes) {
  return (samples + static_cast<size_t>(lanes) - 1) / static_cast<size_t>(lanes);
}

/// Lays out one tile from 1..lanes sample indices (data set indices into `data`).
Result<TileLayout, SolveFailure> layout_tile(const PreparedData& data,
                                             std::span<const int64_t> samples, int lanes);

/// The solver's observations for a tile, pointing into `values` (targets,
/// n_targets*L per observation with a target; non-target lanes hold 0 so
/// that every number the loss kernel sees is finite).
template <class T> struct TileTargets {
  std::vector<T> values;
  std::vector<Observation<T>> observations;
};

/// Fills `out` (reusing its storage) for `layout`.
template <class T>
void build_targets(const PreparedData& data, const TileLayout& layout, TileTargets<T>& out);

extern template void build_targets<float>(const PreparedData&, const TileLayout&,
                                          TileTargets<float>&);
extern template void build_targets<double>(const PreparedData&, const TileLayout&,
                                           TileTargets<double>&);

} // namespace plastic::rt
