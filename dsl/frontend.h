// The front end's entry points: source text or a file in, a checked model out.
//
// Loads the embedded prelude, parses the model, checks it. Everything the
// command line, the REPL and the tests need from `dsl/` goes through here.
#pragma once

#include "dsl/check.h"

#include <string>
#include <vector>

namespace plastic::dsl {

/// The prelude's source text (dsl/prelude.ode, embedded at build time).
std::string_view prelude_source();

/// Parses the prelude (it never has errors; if it had, that is a bug).
std::unique_ptr<Module> parse_prelude();

/// Parses and checks one model given as text. `name` is used in diagnostics.
CheckResult check_source(std::string name, std::string text, const CheckOptions& options,
                         DiagnosticEngine& diag);

/// The same for text already held as a source file: an editor keeps the
/// file, so the spans of the diagnostics and of the symbol index
/// (options.symbols) can be compared with it after the check.
CheckResult check_source_file(const SourceFilePtr& file, const CheckOptions& options,
                              DiagnosticEngine& diag);

/// Reads and checks a model file; an unreadable file is an error without a span.
CheckResult check_file(const std::string& path, const CheckOptions& options,
                       DiagnosticEngine& diag);

/// Whether the model file declares a dim taken from the data (`dim d from
/// data.channels`): only then do commands read the data before compiling.
/// A file that cannot be read or parsed says false (its check reports why).
bool declares_data_dims(const std::string& path);
/// The same for a model's text (the REPL's edited source).
bool source_declares_data_dims(const std::string& name, std::string text);

/// A dim taken from the data (`dim d_in from data.channels else 3`).
struct DataDim {
  std::string name;     ///< "d_in"
  std::string quantity; ///< "channels" or "classes"
  std::string fallback; ///< the `else` expression as written; empty when none
  int line = 0;         ///< of the declaration, 1-based
};
/// The file's dims taken from the data, in order (none when it cannot be read or parsed).
std::vector<DataDim> data_dims(const std::string& path);
std::vector<DataDim> source_data_dims(const std::string& name, std::string text);

/// Reads a whole model file; false if it cannot be read, with the reason in
/// `why` ("is a directory, not a model file", "No such file or directory").
/// Only regular files up to 64 MB are read: a FIFO would block forever.
bool read_file(const std::string& path, std::string& out, std::string* why = nullptr);

} // namespace plastic::dsl
