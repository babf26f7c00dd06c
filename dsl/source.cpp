// Line tables for source files.
#include "dsl/source.h"

#include <algorithm>

namespace plastic::dsl {

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (uint32_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
}

SourceFile::LineCol SourceFile::line_col(uint32_t offset) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  uint32_t line = static_cast<uint32_t>(it - line_starts_.begin());
  return {line, offset - line_starts_[line - 1] + 1};
}

std::string_view SourceFile::line_text(uint32_t line) const {
  if (line == 0 || line > line_starts_.size()) return {};
  uint32_t begin = line_starts_[line - 1];
  uint32_t end =
      line < line_starts_.size() ? line_starts_[line] : static_cast<uint32_t>(text_.size());
  std::string_view s(text_);
  s = s.substr(begin, end - begin);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

} // namespace plastic::dsl
