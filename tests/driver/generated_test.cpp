// generated/: the C++ backend's source of every example, checked in.
//
// Stale files fail the default suite: generated/regenerate.sh runs into a
// temporary folder and every file must equal the checked-in one (and no
// file may be missing or extra); the failure says how to refresh them. And
// the point of portable source: one generated model compiles with the
// system's GCC under -Wall -Werror, links with the runtime into a model
// binary, and predicts what the LLVM JIT predicts from the same parameters.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "tests/driver/cli_support.h"

using namespace plastic::test;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
  return fresh_test_dir("generated_test", name);
}

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The generated files below `root`, relative to it (not the README or the script).
std::set<std::string> generated_files(const fs::path& root) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && (e.path().extension() == ".cpp" || e.path().extension() == ".h"))
      out.insert(fs::relative(e.path(), root).string());
  return out;
}

// The numbers of a CSV file, row by row (header and non-numbers skipped).
std::vector<double> numbers_of(const fs::path& csv) {
  std::vector<double> out;
  std::istringstream in(bytes_of(csv));
  for (std::string line; std::getline(in, line);) {
    std::stringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) {
      char* end = nullptr;
      const double v = std::strtod(cell.c_str(), &end);
      if (end != cell.c_str() && *end == '\0') out.push_back(v);
    }
  }
  return out;
}

} // namespace

TEST_CASE("generated/ is what the compiler emits today", "[generated]") {
  const fs::path dir = fresh_dir("regenerated");
  Run r = shell("bash " + src("generated/regenerate.sh") + " " + PLASTIC_EXE + " " + dir.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const fs::path checked_in = src("generated");
  const std::set<std::string> want = generated_files(dir), have = generated_files(checked_in);
  REQUIRE(want.size() >= 2 * 20);
  const std::string refresh =
      "generated/ is stale: refresh it with `generated/regenerate.sh build/plastic` (from the "
      "source tree) and commit the result";
  std::vector<std::string> stale;
  for (const std::string& f : want)
    if (!have.count(f) || bytes_of(dir / f) != bytes_of(checked_in / f)) stale.push_back(f);
  for (const std::string& f : have)
    if (!want.count(f)) stale.push_back(f + " (no example emits it)");
  std::string list;
  for (const std::string& f : stale)
    list += "\n  generated/" + f;
  INFO(refresh << list);
  CHECK(stale.empty());
}

TEST_CASE("a generated model builds with g++ -Wall -Werror and predicts what the JIT predicts",
          "[generated]") {
  if (shell("command -v g++").exit_code != 0) {
    WARN("g++ is not installed: skipped");
    return;
  }
  const std::string name = "node_leak_flipflop";
  const fs::path dir = fresh_dir(name);
  const std::string object = (dir / "model.o").string(), bin = (dir / name).string();
  Run c =
      shell(fmt::format("g++ -std=c++20 -O2 -Wall -Werror -I {} -c {} -o {}", PLASTIC_SOURCE_DIR,
                        src(fmt::format("generated/{0}/{0}.cpp", name)), object));
  INFO(c.err);
  REQUIRE(c.exit_code == 0);

  // Linked like `plastic build` links (its manifest: the model binary's
  // main, the runtime, {fmt}, flags).
  std::string items;
  std::istringstream manifest(bytes_of(fs::path(PLASTIC_BINARY_DIR) / "plastic-model-link.txt"));
  for (std::string line; std::getline(manifest, line);)
    if (!line.empty() && line[0] != '#') items += " " + line;
  Run l = shell(fmt::format("g++ -o {} {}{}", bin, object, items));
  INFO(l.err);
  REQUIRE(l.exit_code == 0);

  // Parameters trained by the JIT (f32, the generated files' 8 lanes), then
  // predictions from both.
  const std::string model = src(fmt::format("examples/{}.ode", name));
  const std::string jit = "env PLASTIC_LANES=8 " + std::string(PLASTIC_EXE) + " ";
  Run t = shell(jit + "train " + model +
                " --data synthetic:flipflop --epochs 1 --batch 32 --seed 3 --threads 2 "
                "--no-progress --out " +
                (dir / "run").string());
  INFO(t.out << t.err);
  REQUIRE(t.exit_code == 0);
  const std::string predict = " --data synthetic:flipflop --split validation --threads 2 "
                              "--parameters " +
                              (dir / "run").string() + " --output ";
  Run pj = shell(jit + "predict " + model + predict + (dir / "jit.csv").string());
  INFO(pj.err);
  REQUIRE(pj.exit_code == 0);
  Run pb = shell(bin + " predict" + predict + (dir / "bin.csv").string());
  INFO(pb.err);
  REQUIRE(pb.exit_code == 0);
  const std::vector<double> want = numbers_of(dir / "jit.csv"), got = numbers_of(dir / "bin.csv");
  REQUIRE(want.size() > 100);
  REQUIRE(got.size() == want.size());
  // f32 from two compilers and two math libraries (libm; the JIT's
  // polynomials): rounding apart, not more.
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i)
    worst = std::max(worst, std::abs(got[i] - want[i]) / (1 + std::abs(want[i])));
  INFO("largest difference " << worst);
  CHECK(worst < 1e-4);
}
