// Prefetching a large input ahead of its first read.
//
// A direct gradient's step VJP reads the state z0 from the tape written in
// the forward pass, long evicted from the caches. Its first loop over z0
// then waits on memory (a fifth of the speech Delta CDE's step_vjp in
// training), while the loop nests before it — the input projections,
// softmaxes, layer norms — touch little memory. The plan spreads
// prefetches of the largest input the kernel's assembler marked cold
// (InputBinding::cold) over those nests, a burst before each, so the lines
// arrive while they compute. Prefetches change no value.
//
// Internal to compiler/loopgen (emit_function follows the plan).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "compiler/loopgen/emit_function.h"
#include "compiler/loopgen/schedule.h"
#include "compiler/loops/loop_builder.h"

namespace plastic::loopgen {

struct PrefetchPlan {
  loops::Buffer buffer;
  int64_t offset = 0; ///< the input's first element in the buffer
  int64_t stride = 1; ///< elements per cache line (at least 1)
  int64_t lines = 0;  ///< prefetches in all, one per `stride` elements
  /// Per schedule step: the first line and the count prefetched before it.
  std::vector<std::pair<int64_t, int64_t>> burst;
};

/// The plan for one function, or nullopt when no cold varying input of at
/// least kPrefetchMinElements elements is first read after some other loop
/// nest.
std::optional<PrefetchPlan> plan_prefetch(const ir::Function& fn, const Schedule& sched,
                                          std::span<const InputBinding> inputs,
                                          const loops::Function& lf);

/// The prefetches the plan puts before step `s` (none when it has none).
void emit_prefetch_burst(loops::Builder& b, const PrefetchPlan& plan, size_t s);

/// Inputs smaller than this (elements per sample) are left to the caches.
inline constexpr int64_t kPrefetchMinElements = 1024;

} // namespace plastic::loopgen
