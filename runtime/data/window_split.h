// Splits of windowed data by the series the windows were cut from.
//
// `--window N` cuts each series (a Walker2d rollout, a patient's stay) into
// windows, and each window is a sample. Split window by window, the windows
// of one rollout land in training and in test alike (232 of 237 test
// rollouts of the Walker2d set did), and the test error is measured on
// series the model trained on. So when the windows come from enough series
// for every part to get one, the split divides the series and each part
// takes every window of its series. A single long recording (the air
// quality set, the cascaded tanks) has nothing to divide: its windows are
// split one by one, and the description says so.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "runtime/data/dataset.h"
#include "runtime/data/split.h"

namespace plastic::rt {

/// The distinct series `data`'s windows were cut from (Sample::source), in
/// order of first appearance; empty unless every sample is a window.
std::vector<int64_t> window_sources(const Dataset& data);

/// `split` run over the series in `sources` (unstratified: windows carry
/// per-step targets, not classes), each part then holding every window of
/// its series, in ascending order.
SplitIndices split_by_source(const Dataset& data, const std::vector<int64_t>& sources,
                             const std::function<SplitIndices(std::span<const int>)>& split);

/// The description's note on how windows were split: "" for data that are
/// not windows, else e.g. "; by series: each of the 400 series' windows in
/// one part" or "; window by window (one series)".
std::string window_split_note(std::size_t sources, bool by_source);

} // namespace plastic::rt
