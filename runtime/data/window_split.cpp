// Splits of windowed data by series (see window_split.h).
#include "runtime/data/window_split.h"

#include <unordered_map>

#include <fmt/format.h>

namespace plastic::rt {

std::vector<int64_t> window_sources(const Dataset& data) {
  std::vector<int64_t> sources;
  std::unordered_map<int64_t, bool> seen;
  for (const Sample& s : data.samples) {
    if (s.source < 0) return {};
    if (seen.emplace(s.source, true).second) sources.push_back(s.source);
  }
  return sources;
}

SplitIndices split_by_source(const Dataset& data, const std::vector<int64_t>& sources,
                             const std::function<SplitIndices(std::span<const int>)>& split) {
  const std::vector<int> strata(sources.size(), -1);
  const SplitIndices groups = split(strata);
  std::unordered_map<int64_t, std::vector<std::size_t>*> part_of;
  SplitIndices out;
  for (auto [part, into] :
       {std::pair{&groups.train, &out.train}, std::pair{&groups.validation, &out.validation},
        std::pair{&groups.test, &out.test}})
    for (std::size_t g : *part)
      part_of[sources[g]] = into;
  for (std::size_t i = 0; i < data.size(); ++i)
    part_of.at(data.samples[i].source)->push_back(i);
  return out;
}

std::string window_split_note(std::size_t sources, bool by_source) {
  if (sources == 0) return "";
  if (by_source)
    return fmt::format("; by series: each of the {} series' windows in one part", sources);
  return sources == 1
             ? "; window by window (one series)"
             : fmt::format("; window by window ({} series: too few to split by series)", sources);
}

} // namespace plastic::rt
