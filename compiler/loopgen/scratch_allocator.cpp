// Best-fit reuse of scratch buffers (see scratch_allocator.h).
#include "compiler/loopgen/scratch_allocator.h"

#include <fmt/format.h>

#include "compiler/loops/error.h"

namespace plastic::loopgen {

loops::Buffer ScratchAllocator::acquire(loops::Lanes lanes, int64_t size) {
  Slot* best = nullptr;
  for (Slot& s : slots_)
    if (s.free && s.lanes == lanes && s.size >= size && (!best || s.size < best->size)) best = &s;
  if (best) {
    best->free = false;
    return best->buf;
  }
  // Names carry the lane class so the printed loop IR reads at a glance.
  std::string name = fmt::format("{}{}", lanes == loops::Lanes::Varying ? "v" : "u", slots_.size());
  loops::Buffer buf = b_.scratch_buffer(std::move(name), lanes, size);
  slots_.push_back({buf, lanes, size, false});
  return buf;
}

void ScratchAllocator::release(loops::Buffer buf) {
  for (Slot& s : slots_)
    if (s.buf.id == buf.id) {
      PLASTIC_CHECK(!s.free, "kernel emitter: scratch buffer released twice");
      s.free = true;
      return;
    }
  PLASTIC_CHECK(false, "kernel emitter: releasing a buffer the allocator does not own");
}

} // namespace plastic::loopgen
