// libFuzzer target: any bytes as a UEA/sktime `.ts` file. The reader must
// return a dataset that passes Dataset::check() or a located DataError —
// never crash, hang, throw or hand back an inconsistent dataset.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "runtime/data/ts_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto result = plastic::rt::parse_ts(text, "fuzz.ts");
  if (result && result.value().check()) std::abort(); // a dataset the reader vouched for is wrong
  if (!result) (void)result.error().describe();
  return 0;
}
