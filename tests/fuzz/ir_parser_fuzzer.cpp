// libFuzzer target: any bytes as IR text (`plastic emit --ir`'s format).
// The parser must return functions or throw IRError with a location; any
// other exception (an InternalError is a bug) or a crash fails the run. A
// parsed function must print.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "compiler/ir/context.h"
#include "compiler/ir/error.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  plastic::ir::Context ctx;
  try {
    for (const plastic::ir::Function& f : plastic::ir::parse_functions(ctx, text, "fuzz.ir"))
      (void)plastic::ir::print(f);
  } catch (const plastic::ir::IRError& e) {
    (void)e.describe();
  }
  return 0;
}
