// Physical memory from sysconf (see machine_memory.h).
#include "runtime/support/machine_memory.h"

#include <unistd.h>

#include <limits>

namespace plastic::rt {

uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
}

uint64_t largest_readable_file() {
  const uint64_t memory = physical_memory_bytes();
  return memory == std::numeric_limits<uint64_t>::max() ? memory : memory / 5 * 4;
}

} // namespace plastic::rt
