// `plastic build` flags beyond the model binary itself: `--target` names
// only CPUs LLVM knows (LLVM alone would warn and emit generic code), and
// `--emit-lib` writes a static library and a header that a C++ program
// links and calls.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/driver/cli_support.h"

using namespace plastic::test;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
  return fresh_test_dir("build_flags_test", name);
}

const std::string kModel = "examples/gnode_flipflop.ode --set N=6 --set H=8";

} // namespace

TEST_CASE("plastic build: an unknown --target CPU is refused, saying how to list the names",
          "[build]") {
  const fs::path dir = fresh_dir("target");
  Run bad = run("build " + src(kModel) + " --target skylake-avx1024 -o " + (dir / "m").string());
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("unknown target CPU 'skylake-avx1024'") &&
                          Catch::Contains("--target help"));
  CHECK_FALSE(fs::exists(dir / "m"));
  // Also before --emit-obj writes anything.
  Run obj = run("build " + src(kModel) + " --emit-obj --target znver99 -o " + (dir / "o").string());
  CHECK(obj.exit_code == 2);
  CHECK_FALSE(fs::exists(dir / "o.o"));

  // -o is required for everything but the list.
  Run no_out = run("build " + src(kModel));
  CHECK(no_out.exit_code == 2);
  CHECK_THAT(no_out.err, Catch::Contains("-o is required"));

  Run help = run("build " + src(kModel) + " --target help");
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Catch::StartsWith("native\n"));
#if defined(__x86_64__)
  CHECK_THAT(help.out, Catch::Contains("\nx86-64-v3\n") && Catch::Contains("\nznver4\n"));
  // A name from the list is accepted.
  Run ok =
      run("build " + src(kModel) + " --emit-obj --target x86-64-v3 -o " + (dir / "v3").string());
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  CHECK(fs::exists(dir / "v3.o"));
#endif
}

TEST_CASE("plastic build --emit-lib: a static library and a header a C++ program links",
          "[build]") {
  const fs::path dir = fresh_dir("lib");
  Run b = run("build " + src(kModel) + " --dtype f64 --emit-lib -o " + (dir / "flipflop").string());
  INFO(b.err);
  REQUIRE(b.exit_code == 0);
  REQUIRE(fs::exists(dir / "libflipflop.a"));
  REQUIRE(fs::exists(dir / "flipflop.h"));
  CHECK_FALSE(fs::exists(dir / "flipflop.o")); // the object went into the archive

  // A program calling the entry point the header declares, linked with the
  // archive alone: the table and its kernels are all in it.
  std::ofstream(dir / "main.cpp") << R"(#include "flipflop.h"
#include "runtime/abi.h"
#include <cstdio>
int main() {
  const plastic_model* m = plastic_model_v1();
  std::printf("%s %d %lld\n", m->name, m->dtype == PLASTIC_F64 ? 64 : 32,
              static_cast<long long>(m->n_params));
  return m->abi_version == PLASTIC_ABI_VERSION ? 0 : 1;
}
)";
  const char* cxx = std::getenv("CXX");
  const std::string link = std::string(cxx && *cxx ? cxx : "c++") + " -std=c++20 -I" +
                           dir.string() + " -I" + PLASTIC_SOURCE_DIR + " " +
                           (dir / "main.cpp").string() + " " + (dir / "libflipflop.a").string() +
                           " -lm -o " + (dir / "main").string() + " 2>" +
                           (dir / "link.log").string();
  REQUIRE(std::system(link.c_str()) == 0);
  const std::string out = (dir / "main.out").string();
  REQUIRE(std::system(((dir / "main").string() + " >" + out).c_str()) == 0);
  std::ifstream in(out);
  std::string name;
  int bits = 0;
  long long params = 0;
  in >> name >> bits >> params;
  CHECK(name == "gnode_flipflop");
  CHECK(bits == 64);
  CHECK(params > 0);
}
