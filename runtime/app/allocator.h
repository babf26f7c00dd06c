// Keeps glibc's malloc from handing memory back to the system between
// training steps. A direct-gradient solve stores every state of a tile
// (megabytes) and frees it at the end of the batch; with glibc's defaults
// those blocks are mmap'ed and unmapped again each time, and every step
// pays for zeroing freshly faulted pages (a fifth of a training step in a
// profile of the speech Delta CDE). Raising the mmap and trim thresholds
// keeps the pages in the heap for the next batch. The PyTorch reference in
// bench/ gets the same treatment, so comparisons stay fair.
#pragma once

namespace plastic::rt {

/// Call once at start-up, before large allocations.
void keep_freed_memory();

} // namespace plastic::rt
