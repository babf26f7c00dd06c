// A batch's tiles spread over data-parallel ranks (runtime/distributed):
// which tiles this process computes, and how the ranks agree on a failure.
//
// Every rank holds the whole data set and the whole batch's sample list, so
// the tiles are cut exactly as one process cuts them (tile.h); rank r then
// computes the contiguous range shard(tiles, r, K). Results are reduced in
// tile order (Communicator::ordered_sum), so a batch's loss and gradient are
// bitwise those of a single process, for any K. Without a communicator (or
// with one rank) a TileShard is every tile of this process.
#pragma once

#include <cstddef>
#include <span>

#include "runtime/distributed/communicator.h"
#include "runtime/solvers/status.h"

namespace plastic::rt {

struct TileShard {
  Communicator* comm = nullptr; ///< null or one rank: not distributed
  size_t tiles = 0;             ///< tiles of the whole batch
  TileRange range;              ///< the tiles this rank computes

  TileShard(Communicator* c, size_t tile_total);
  bool distributed() const { return comm != nullptr && comm->size() > 1; }
};

/// The first failing tile's status over all ranks (tile order), on every
/// rank; `local[i]` is the status of tile range.first + i. The message names
/// the rank that failed. Collective: every rank calls it once per batch.
Status<SolveFailure> agree_on_failure(const TileShard& shard,
                                      std::span<Status<SolveFailure>> local);

} // namespace plastic::rt
