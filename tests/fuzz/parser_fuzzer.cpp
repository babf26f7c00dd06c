// libFuzzer target: any bytes through the whole front end (lexer, parser,
// checker, and the symbol index an editor's language server reads). It
// must return diagnostics, never crash, hang or throw — an InternalError
// escaping is a bug and aborts the run. Built with -DPLASTIC_FUZZ=ON and
// clang-19; `.ci/fuzz` runs it on a corpus seeded from the examples.
#include "dsl/frontend.h"

#include <cstddef>
#include <cstdint>
#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  plastic::dsl::DiagnosticEngine diag;
  auto file = std::make_shared<plastic::dsl::SourceFile>(
      "fuzz.ode", std::string(reinterpret_cast<const char*>(data), size));
  plastic::dsl::SymbolIndex symbols;
  plastic::dsl::CheckOptions options;
  options.symbols = &symbols;
  plastic::dsl::check_source_file(file, options, diag);
  std::ostringstream sink;
  diag.render(sink); // rendering (carets, line tables) is part of the surface
  // What `plastic lsp` asks of the index: the symbol under a cursor, and
  // the declaration's text where it is in this file.
  for (uint32_t offset = 0; offset <= size; offset += 7)
    if (const int id = symbols.at(file.get(), offset); id >= 0) {
      const plastic::dsl::Symbol& s = symbols.symbols().at(static_cast<size_t>(id));
      if (s.decl.file == file.get()) sink << s.name << s.type << s.declared << s.decl.text();
    }
  return 0;
}
