// Diagnostics: errors and warnings a person can act on.
//
// Every message is `file:line:col: error: …`, then the source line, a caret
// line underlining the whole span, and a hint when one is known (a near-miss
// name, which contracted dims differ). The engine collects every diagnostic of
// a run so the parser and checker can recover and report several at once,
// up to an error limit. Echoed source lines show non-printable bytes as
// \xNN and long lines only around the caret, so a binary file given as a
// model cannot flood a terminal with raw escape bytes.
// User errors live here; internal errors (bugs in Plastic) are a different
// type, InternalError, and say so.
#pragma once

#include "runtime/support/internal_error.h"

#include "dsl/source.h"

#include <algorithm>
#include <limits>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace plastic::dsl {

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  Span span;
  std::string message;
  std::string hint; ///< empty if none
};

/// Collects diagnostics; renders them in the classic compiler format.
class DiagnosticEngine {
public:
  void error(Span span, std::string message, std::string hint = {});
  void warning(Span span, std::string message, std::string hint = {});
  void note(Span span, std::string message);
  /// Keeps a source file alive as long as the diagnostics that point into it.
  void keep(SourceFilePtr file) { files_.push_back(std::move(file)); }

  const std::vector<Diagnostic>& all() const { return diags_; }
  int error_count() const { return errors_; }
  int warning_count() const { return warnings_; }
  bool has_errors() const { return errors_ > 0; }
  /// True once so many errors were reported that more would be noise.
  bool too_many() const { return errors_ >= max_errors_; }
  /// Errors past this many are counted but neither kept nor shown (as
  /// compilers' -ferror-limit; 0 = no limit): 1 MB of random bytes once gave
  /// 223,417 errors and 158 MB of output.
  void set_max_errors(int n) { max_errors_ = n > 0 ? n : std::numeric_limits<int>::max(); }
  static constexpr int kDefaultErrorLimit = 20;
  /// Warnings past this many (or max_errors_ when higher) are counted, not
  /// kept: 10^5 unused consts once printed 300,000 lines.
  static constexpr int kDefaultWarningLimit = 100;
  int warning_limit() const { return std::max(kDefaultWarningLimit, max_errors_); }

  /// Writes every diagnostic in order. `color` adds ANSI colours.
  void render(std::ostream& os, bool color = false) const;
  /// Renders one diagnostic.
  static void render_one(std::ostream& os, const Diagnostic& d, bool color = false);

private:
  std::vector<Diagnostic> diags_;
  std::vector<SourceFilePtr> files_;
  int errors_ = 0, warnings_ = 0, max_errors_ = kDefaultErrorLimit;
};

/// The closest candidate to `name` by edit distance, or "" if none is close.
std::string closest_name(const std::string& name, const std::vector<std::string>& candidates);

} // namespace plastic::dsl
