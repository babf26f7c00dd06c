// libFuzzer target: any bytes as a NumPy `.npy` file. The parser must return
// an array whose element count is the product of its shape, or a DataError
// with a byte offset — never crash, hang, throw, or allocate what the header
// merely claims.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "runtime/data/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto result = plastic::rt::parse_npy(bytes, "fuzz.npy");
  if (!result) {
    (void)result.error().describe();
    return 0;
  }
  std::size_t count = 1;
  for (std::size_t d : result.value().shape)
    count *= d;
  if (count != result.value().data.size()) std::abort();
  return 0;
}
