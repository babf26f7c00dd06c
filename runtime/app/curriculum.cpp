// A curriculum of sequence lengths (see curriculum.h).
#include "runtime/app/curriculum.h"

#include <cstdlib>

#include <fmt/format.h>

#include "runtime/support/comma_list.h"

namespace plastic::rt {

Result<std::vector<CurriculumStage>, std::string> parse_curriculum(const std::string& text) {
  const char* form = "written LENGTH:EPOCHS,... e.g. 14:100,28:100";
  std::vector<CurriculumStage> stages;
  for (std::string_view one : split_comma_list(text)) {
    const std::string item(one);
    const size_t colon = item.find(':');
    char* end = nullptr;
    CurriculumStage s;
    bool ok = colon != std::string::npos && colon > 0;
    if (ok) {
      s.length = std::strtoll(item.c_str(), &end, 10);
      ok = end == item.c_str() + colon;
    }
    if (ok) {
      const char* epochs = item.c_str() + colon + 1;
      s.epochs = std::strtoll(epochs, &end, 10);
      ok = *epochs != '\0' && *end == '\0';
    }
    if (!ok) return fmt::format("'{}' is not a stage: {}", item, form);
    if (s.length < 2) return fmt::format("'{}': a stage needs at least 2 observations", item);
    if (s.epochs < 1) return fmt::format("'{}': a stage lasts at least 1 epoch", item);
    if (!stages.empty() && s.length <= stages.back().length)
      return fmt::format("'{}': the lengths must grow ({} after {})", item, s.length,
                         stages.back().length);
    stages.push_back(s);
  }
  return stages;
}

size_t curriculum_stage(const std::vector<CurriculumStage>& stages, int64_t epoch) {
  int64_t last = 0;
  for (size_t i = 0; i < stages.size(); ++i) {
    last += stages[i].epochs;
    if (epoch <= last) return i;
  }
  return stages.size();
}

std::string describe_curriculum(const std::vector<CurriculumStage>& stages) {
  std::string out;
  int64_t first = 1;
  for (const CurriculumStage& s : stages) {
    out += fmt::format("{}{} observations for epochs {}-{}", out.empty() ? "" : ", ", s.length,
                       first, first + s.epochs - 1);
    first += s.epochs;
  }
  return out + fmt::format(", the whole series from epoch {}", first);
}

} // namespace plastic::rt
