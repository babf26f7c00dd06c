// A minimal parallel loop over work items (tiles, samples) on std::threads.
//
// Items are handed out dynamically (an atomic counter), so the assignment of
// items to threads varies from run to run: callers that need reproducible
// results write per-item results and reduce them in item order (see
// ordered_sum.h), never in completion order. Worker 0 is the calling thread.
#pragma once

#include <cstddef>
#include <functional>

namespace plastic::rt {

/// Workers to use for `items` items: `requested` (0 = hardware threads), at
/// least 1, at most `items`.
int resolve_threads(int requested, size_t items);

/// Calls work(item, worker) for every item in [0, n), worker in
/// [0, resolve_threads(threads, n)). When a call returns false no further
/// items are started (calls already running finish). An exception thrown by
/// `work` stops the loop the same way and is rethrown on the calling thread.
void parallel_for(size_t n, int threads, const std::function<bool(size_t item, int worker)>& work);

} // namespace plastic::rt
