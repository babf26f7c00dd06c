// Source files and spans.
//
// Every token, AST node and diagnostic points back into the text it came
// from through a Span (file, byte range). Line/column numbers are computed on
// demand from a per-file line table, so spans stay two integers wide.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace plastic::dsl {

/// The text of one input (a model file, the prelude, or generated source).
class SourceFile {
public:
  SourceFile(std::string name, std::string text);

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }

  /// 1-based line and column (in bytes) of a byte offset.
  struct LineCol {
    uint32_t line = 1, col = 1;
  };
  LineCol line_col(uint32_t offset) const;
  /// The text of a 1-based line, without its newline.
  std::string_view line_text(uint32_t line) const;
  uint32_t line_count() const { return static_cast<uint32_t>(line_starts_.size()); }

private:
  std::string name_;
  std::string text_;
  std::vector<uint32_t> line_starts_;
};

using SourceFilePtr = std::shared_ptr<const SourceFile>;

/// A half-open byte range [begin, end) of one source file.
struct Span {
  const SourceFile* file = nullptr;
  uint32_t begin = 0, end = 0;

  bool valid() const { return file != nullptr; }
  std::string_view text() const {
    return valid() ? std::string_view(file->text()).substr(begin, end - begin) : std::string_view();
  }
  /// The smallest span covering both (same file assumed).
  Span to(const Span& other) const {
    if (!valid()) return other;
    if (!other.valid()) return *this;
    return {file, std::min(begin, other.begin), std::max(end, other.end)};
  }
};

} // namespace plastic::dsl
