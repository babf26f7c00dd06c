// libFuzzer target: any bytes as a `.safetensors` file (parameters,
// optimiser state). Decoding must validate the header against the data —
// offsets in range, sizes matching dtype and shape — or return a TrainError;
// a decoded file must encode again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "runtime/io/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  auto result = plastic::rt::decode_safetensors(bytes, "fuzz.safetensors");
  if (!result) {
    (void)result.error().describe();
    return 0;
  }
  if (!plastic::rt::encode_safetensors(result.value())) std::abort(); // decoded, so valid
  return 0;
}
