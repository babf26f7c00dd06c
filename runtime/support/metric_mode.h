// Whether a monitored number is better when smaller (a loss) or larger (an
// accuracy): shared by the schedules and early stopping that watch it
// (runtime/train), the epoch log that marks the best epoch (runtime/io) and
// the batch evaluation that names a task's metric (runtime/batch).
#pragma once

namespace plastic::rt {

/// Whether smaller or larger monitored values are better.
enum class MetricMode { Min, Max };

} // namespace plastic::rt
