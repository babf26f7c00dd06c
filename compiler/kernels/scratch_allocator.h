// Reuse of scratch buffers between materialised nodes of one kernel.
//
// Builder::scratch_buffer lays buffers out one after the other in the
// arena, so the arena grows with every buffer ever declared. The emitter
// knows (schedule.h) the last step that reads each materialised node; once
// that step is emitted the node's buffer returns to a pool and a later node
// of the same lane class that fits takes it over (best fit). The arena then
// holds only what is live at the same time, which keeps the per-thread
// scratch small (no heap in kernels).
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/codegen/loop_builder.h"

namespace plastic::kernels {

class ScratchAllocator {
public:
  explicit ScratchAllocator(codegen::Builder& b) : b_(b) {}

  /// A buffer of at least `size` elements (per sample when varying) that no
  /// live node uses.
  codegen::Buffer acquire(codegen::Lanes lanes, int64_t size);
  /// Returns a buffer to the pool.
  void release(codegen::Buffer buf);

  /// Buffers declared so far (for statistics and tests).
  size_t declared() const { return slots_.size(); }

private:
  struct Slot {
    codegen::Buffer buf;
    codegen::Lanes lanes;
    int64_t size;
    bool free;
  };
  codegen::Builder& b_;
  std::vector<Slot> slots_;
};

} // namespace plastic::kernels
