// Non-finite parameters are refused on load, naming the tensor and the
// element — eval used to exit 0 on a model.safetensors holding a NaN (ReLU
// turned it into 0 and the metric looked normal). Checkpoints are covered
// by tests/runtime/train/state_tensors_test.cpp (their content hash already
// catches a value changed on disk).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "tests/driver/cli_support.h"

using namespace plastic::test;
namespace fs = std::filesystem;

namespace {

const std::string kModel = src("examples/gnode_flipflop.ode") + " --set N=8 --set H=8";
const std::string kData = " --data synthetic:flipflop --dtype f64 --batch 50 --threads 1 ";

/// Overwrites element `k` of tensor `name` (f64) in a safetensors file; the
/// header's offsets are relative to the end of the header.
void poison(const fs::path& file, const std::string& name, size_t k, double value) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  uint64_t n = 0;
  f.read(reinterpret_cast<char*>(&n), 8);
  std::string header(n, '\0');
  f.read(header.data(), static_cast<std::streamsize>(n));
  auto j = nlohmann::json::parse(header);
  REQUIRE(j.contains(name));
  REQUIRE(j[name]["dtype"] == "F64");
  const uint64_t at = 8 + n + j[name]["data_offsets"][0].get<uint64_t>() + k * sizeof(double);
  f.seekp(static_cast<std::streamoff>(at));
  f.write(reinterpret_cast<const char*>(&value), sizeof value);
}

/// The name of the first tensor in a safetensors header (other than metadata).
std::string first_tensor(const fs::path& file) {
  std::ifstream f(file, std::ios::binary);
  uint64_t n = 0;
  f.read(reinterpret_cast<char*>(&n), 8);
  std::string header(n, '\0');
  f.read(header.data(), static_cast<std::streamsize>(n));
  for (auto& [key, value] : nlohmann::json::parse(header).items())
    if (key != "__metadata__" && key.find('/') == std::string::npos) return key;
  return {};
}

} // namespace

TEST_CASE("eval refuses non-finite parameters naming the tensor and element", "[train][params]") {
  fs::path run =
      fs::path(PLASTIC_BINARY_DIR) / "parameters_test" / ("nan." + std::to_string(::getpid()));
  fs::remove_all(run);
  REQUIRE(plastic::test::run("train " + kModel + kData + "--epochs 1 --no-progress --out " +
                             run.string())
              .exit_code == 0);
  const std::string tensor = first_tensor(run / "model.safetensors");
  REQUIRE(!tensor.empty());
  poison(run / "model.safetensors", tensor, 1, std::numeric_limits<double>::quiet_NaN());
  Run e = plastic::test::run("eval " + kModel + kData + "--split validation --parameters " +
                             run.string());
  INFO(e.err);
  CHECK(e.exit_code == 1);
  CHECK_THAT(e.err, Catch::Contains("'" + tensor + "'"));
  CHECK_THAT(e.err, Catch::Contains("(element 1) is nan"));
}
