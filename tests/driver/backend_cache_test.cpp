// The kernel cache seen from the command line: a second `plastic train` of
// the same model links its machine code from the on-disk cache instead of
// compiling it again — for the C++ backend too, whose Clang run is the
// slowest compile Plastic has — and trains to the same numbers bit for bit.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/driver/cli_support.h"

using namespace plastic::test;
namespace fs = std::filesystem;

namespace {

const std::string kModel = "examples/gnode_flipflop.ode --set N=6 --set H=8";

// `plastic train` for two epochs with the cache in `cache`.
Run train(const fs::path& cache, const fs::path& out, const std::string& backend) {
  return shell("PLASTIC_CACHE_DIR=" + cache.string() + " " + PLASTIC_EXE + " train " + src(kModel) +
               " --data synthetic:flipflop --dtype f64 --batch 50 --threads 1 --epochs 2 --out " +
               out.string() + " --no-progress --backend " + backend);
}

// What the trained model scores on the validation split.
nlohmann::json validation(const fs::path& run_dir) {
  return nlohmann::json::parse(std::ifstream(run_dir / "summary.json"))["validation"];
}

int objects_in(const fs::path& dir) {
  int n = 0;
  if (!fs::exists(dir)) return 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    n += e.path().extension() == ".o" ? 1 : 0;
  return n;
}

} // namespace

TEST_CASE("a second run of the C++ backend links its kernels from the cache", "[cli][cache]") {
  const fs::path dir = fresh_test_dir("backend_cache_test", "cpp");
  const Run first = train(dir / "cache", dir / "first", "cpp");
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  CHECK_THAT(first.err, Catch::Contains("(C++ backend)"));
  CHECK(objects_in(dir / "cache") == 1); // one object for the whole generated source

  const Run second = train(dir / "cache", dir / "second", "cpp");
  INFO(second.err);
  REQUIRE(second.exit_code == 0);
  CHECK_THAT(second.err, Catch::Contains("(C++ backend, kernels from the cache)"));
  CHECK(objects_in(dir / "cache") == 1);
  CHECK(validation(dir / "first") == validation(dir / "second"));
}

TEST_CASE("the LLVM and C++ backends keep apart entries in one cache", "[cli][cache]") {
  const fs::path dir = fresh_test_dir("backend_cache_test", "both");
  const Run cpp = train(dir / "cache", dir / "cpp", "cpp");
  REQUIRE(cpp.exit_code == 0);
  const Run jit = train(dir / "cache", dir / "llvm", "llvm");
  INFO(jit.err);
  REQUIRE(jit.exit_code == 0);
  // The C++ object serves no LLVM kernel: each of those compiled anew.
  CHECK_THAT(jit.err, !Catch::Contains("from the cache"));
  CHECK(objects_in(dir / "cache") > 1);
  // The model's line when its compilation starts, the kernels' when the
  // command has its data and waits for them.
  const size_t model = jit.err.find("model     "), kernels = jit.err.find("kernels   compiled in");
  REQUIRE(kernels != std::string::npos);
  CHECK(model < kernels);
}
