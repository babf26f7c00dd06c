// Reuse of scratch buffers between materialised nodes of one kernel.
//
// Builder::scratch_buffer lays buffers out one after the other in the
// arena, so the arena grows with every buffer ever declared. The emitter
// knows (schedule.h) the last step that reads each materialised node; once
// that step is emitted the node's buffer returns to a pool and a later node
// of the same lane class that fits takes it over (best fit). The arena then
// holds only what is live at the same time, which keeps the per-thread
// scratch small (no heap in kernels).
//
// Internal header of compiler/loopgen/: nothing outside that folder includes it.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/loops/loop_builder.h"

namespace plastic::loopgen {

class ScratchAllocator {
public:
  explicit ScratchAllocator(loops::Builder& b) : b_(b) {}

  /// A buffer of at least `size` elements (per sample when varying) that no
  /// live node uses.
  loops::Buffer acquire(loops::Lanes lanes, int64_t size);
  /// Returns a buffer to the pool.
  void release(loops::Buffer buf);

  /// Buffers declared so far (for statistics and tests).
  size_t declared() const { return slots_.size(); }

private:
  struct Slot {
    loops::Buffer buf;
    loops::Lanes lanes;
    int64_t size;
    bool free;
  };
  loops::Builder& b_;
  std::vector<Slot> slots_;
};

} // namespace plastic::loopgen
