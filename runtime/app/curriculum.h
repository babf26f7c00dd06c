// A curriculum of sequence lengths, `train --curriculum 14:100,28:100,...`:
// the first epochs train on each training series' first 14 observations,
// the next on its first 28, and so on; after the last stage, on the whole
// series up to --epochs. Paper 003 (App. H.3) trains Walker2d this way,
// growing the prefix by 14 bins every 100 epochs. Validation always sees
// the whole series, so the best epoch is chosen on the task itself.
//
// The stage of an epoch is a function of the epoch alone, so a resumed run
// continues in the stage it stopped in; the curriculum is part of the run's
// record (run_record.h): a resumed run cannot change it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/support/result.h"
#include "runtime/train/train_loop.h"

namespace plastic::rt {

struct CurriculumStage {
  int64_t length = 0; ///< observations of each series
  int64_t epochs = 0; ///< epochs of this stage
};

/// "14:100,28:100": lengths strictly increasing, at least 2; epochs at least 1.
Result<std::vector<CurriculumStage>, std::string> parse_curriculum(const std::string& text);

/// The stage epoch `epoch` (1-based) trains in; stages.size() = the whole series.
size_t curriculum_stage(const std::vector<CurriculumStage>& stages, int64_t epoch);

/// "14 observations for epochs 1-100, 28 for 101-200, the whole series from 201".
std::string describe_curriculum(const std::vector<CurriculumStage>& stages);

/// Training hooks that train epoch e with `per_stage[curriculum_stage(stages, e)]`
/// (one per stage, the whole series' last) and validate and check with the
/// last's.
template <class T>
TrainHooks<T> curriculum_hooks(std::vector<CurriculumStage> stages,
                               std::vector<TrainHooks<T>> per_stage) {
  struct Shared {
    std::vector<CurriculumStage> stages;
    std::vector<TrainHooks<T>> hooks;
    size_t current = 0;
  };
  auto shared = std::make_shared<Shared>(Shared{std::move(stages), std::move(per_stage), 0});
  TrainHooks<T> h = shared->hooks.back();
  h.begin_epoch = [shared](int64_t epoch, Rng& rng) {
    shared->current = curriculum_stage(shared->stages, epoch);
    if (const auto& begin = shared->hooks[shared->current].begin_epoch) begin(epoch, rng);
  };
  h.train_batch = [shared](int64_t epoch, int64_t batch, std::span<const T> params,
                           std::span<T> grads, Rng& rng) {
    return shared->hooks[shared->current].train_batch(epoch, batch, params, grads, rng);
  };
  return h;
}

} // namespace plastic::rt
