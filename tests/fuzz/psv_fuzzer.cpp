// libFuzzer target: any bytes as one PhysioNet 2019 stay (`.psv`), read
// as recorded or with Kidger et al.'s settings (OI or not, by the first
// byte). A consistent dataset or a located DataError — never a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "runtime/data/physionet.h"

using namespace plastic::rt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  PhysioNetOptions options;
  if (data[0] & 1) options = PhysioNetOptions::kidger2020((data[0] & 2) != 0);
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto result = parse_physionet2019_stay(text, "p000001.psv", options);
  if (!result) {
    (void)result.error().describe();
    return 0;
  }
  if (result.value().check()) std::abort();
  return 0;
}
