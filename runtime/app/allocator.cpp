// glibc malloc tuning for training (see allocator.h).
#include "runtime/app/allocator.h"

#include <cstdlib> // defines __GLIBC__ (features.h) for the test below

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace plastic::rt {

void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 256 << 20); // blocks below 256 MiB come from the heap
  mallopt(M_TRIM_THRESHOLD, 512 << 20); // and the heap is not trimmed below 512 MiB of free top
  mallopt(M_TOP_PAD, 64 << 20);
#endif
}

} // namespace plastic::rt
