// libFuzzer target: any bytes through the whole front end (lexer, parser,
// checker). It must return diagnostics, never crash, hang or throw — an
// InternalError escaping is a bug and aborts the run. Built with
// -DPLASTIC_FUZZ=ON and clang-19; `.ci/fuzz` runs it on a corpus seeded from
// the examples.
#include "dsl/frontend.h"

#include <cstddef>
#include <cstdint>
#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  plastic::dsl::DiagnosticEngine diag;
  std::string text(reinterpret_cast<const char*>(data), size);
  plastic::dsl::CheckOptions options;
  plastic::dsl::check_source("fuzz.ode", std::move(text), options, diag);
  std::ostringstream sink;
  diag.render(sink); // rendering (carets, line tables) is part of the surface
  return 0;
}
