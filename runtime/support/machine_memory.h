// How much memory this machine has, for limits that keep a bad input from
// ending in the out-of-memory killer instead of an error a person can act on.
//
// Files are read whole (data, parameters, run records): one larger than most
// of the machine's memory is refused before it is read.
#pragma once

#include <cstdint>

namespace plastic::rt {

/// Physical memory in bytes (UINT64_MAX when the system does not say).
uint64_t physical_memory_bytes();

/// The largest file read whole into memory: four fifths of physical memory.
uint64_t largest_readable_file();

} // namespace plastic::rt
