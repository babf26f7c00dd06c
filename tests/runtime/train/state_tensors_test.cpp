// Parameters are finite whenever they cross the disk: a NaN or an infinity
// is refused when saving (a diverged run never writes one) and when loading
// (a model file or a checkpoint that holds one), naming the tensor and the
// element.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "runtime/train/state_tensors.h"

using namespace plastic;
using namespace plastic::rt;

namespace {
ParamTable table() {
  return ParamTable::make({{"w", {2, 3}, 0}, {"b", {2}, 6}}, 8).value();
}
} // namespace

TEST_CASE("non-finite parameters are never turned into tensors", "[state_tensors]") {
  std::vector<double> theta(8, 0.5);
  REQUIRE(params_to_tensors<double>(table(), theta));
  theta[4] = std::numeric_limits<double>::quiet_NaN(); // w[1,1]
  auto saved = params_to_tensors<double>(table(), theta);
  REQUIRE(!saved);
  CHECK_THAT(saved.error().message, Catch::Contains("'w' [1,1] (element 4) is nan"));
}

TEST_CASE("non-finite tensors are refused on load and leave theta untouched", "[state_tensors]") {
  std::vector<float> theta(8, 0.25f);
  SafetensorsFile file;
  file.tensors = params_to_tensors<float>(table(), theta).value();
  for (NamedTensor& t : file.tensors)
    if (t.name == "b") {
      const float inf = -std::numeric_limits<float>::infinity();
      std::memcpy(t.bytes.data() + sizeof(float), &inf, sizeof inf);
    }
  std::vector<float> loaded(8, 1.0f);
  Status<TrainError> s = params_from_tensors<float>(table(), file, loaded, "", "ckpt.safetensors");
  REQUIRE(!s);
  CHECK(s.error().file == "ckpt.safetensors");
  CHECK_THAT(s.error().message, Catch::Contains("'b' [1] (element 1) is -inf"));
  CHECK(loaded == std::vector<float>(8, 1.0f));
}
