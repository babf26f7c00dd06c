// Ahead-of-time model binaries (`plastic build model.ode -o NAME`) end to
// end, against the JIT driver they must agree with: for five zoo models a
// binary's `predict` is byte for byte `plastic predict`'s and two epochs of
// f64 training give the same model.safetensors, parameters trained by one
// are accepted by the other (same lanes, dtype, --set), with either backend's
// kernels. Also what makes a
// binary deployable: no LLVM or Clang among its libraries, it runs alone in
// an empty folder, it refuses another model's run folder naming both
// hashes, and `--target x86-64-v3` code has no AVX-512 register.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "runtime/abi.h"
#include "tests/driver/cli_support.h"
#include "tests/support/toy_ts.h"

using namespace plastic::test;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
  return fresh_test_dir("model_binary_test", name);
}

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Case {
  std::string model; // model file and --set, relative to the source tree
  std::string data;  // --data
  std::string split; // what predict writes
};

// Builds the binary, trains with it and with the JIT from the same seed,
// and predicts with each from the other's run folder. `backend` ("llvm" or
// "cpp") makes the kernels of both.
void check_same_as_jit(const std::string& name, const Case& c,
                       const std::string& backend = "llvm") {
  const fs::path dir = fresh_dir(name);
  const std::string bin = (dir / name).string();
  // Same tile width on both sides: the binary's is fixed at build time, the
  // JIT's follows PLASTIC_LANES (4 x f64: one 256-bit vector on any x86-64).
  const std::string jit = "env PLASTIC_LANES=4 " + std::string(PLASTIC_EXE) + " ";
  const std::string model = src(c.model) + " --backend " + backend;
  Run b = run("build " + model + " --dtype f64 --lanes 4 -o " + bin);
  INFO(b.err);
  REQUIRE(b.exit_code == 0);
  REQUIRE(fs::exists(bin));

  const std::string train =
      " --data " + c.data + " --dtype f64 --epochs 2 --batch 16 --seed 3 --threads 2 --no-progress";
  Run tj = shell(jit + "train " + model + train + " --out " + (dir / "jit_run").string());
  INFO(tj.out << tj.err);
  REQUIRE(tj.exit_code == 0);
  Run tb = shell(bin + " train" + train + " --out " + (dir / "bin_run").string());
  INFO(tb.out << tb.err);
  REQUIRE(tb.exit_code == 0);
  const std::string jit_params = bytes_of(dir / "jit_run/model.safetensors");
  REQUIRE(jit_params.size() > 100);
  CHECK(bytes_of(dir / "bin_run/model.safetensors") == jit_params);
  // The same run records: both name the same model hash.
  auto hash = [](const fs::path& run_dir) {
    return nlohmann::json::parse(std::ifstream(run_dir / "summary.json"))["model_hash"]
        .get<std::string>();
  };
  CHECK(hash(dir / "bin_run") == hash(dir / "jit_run"));

  // Each predicts from the other's run folder (accepted in both directions).
  const std::string predict = " --data " + c.data + " --dtype f64 --threads 2 --split " + c.split;
  Run pj = shell(jit + "predict " + model + predict + " --parameters " +
                 (dir / "bin_run").string() + " --output " + (dir / "jit.csv").string());
  INFO(pj.err);
  REQUIRE(pj.exit_code == 0);
  Run pb = shell(bin + " predict" + predict + " --parameters " + (dir / "jit_run").string() +
                 " --output " + (dir / "bin.csv").string());
  INFO(pb.err);
  REQUIRE(pb.exit_code == 0);
  const std::string want = bytes_of(dir / "jit.csv");
  CHECK(std::count(want.begin(), want.end(), '\n') > 5);
  CHECK(bytes_of(dir / "bin.csv") == want);
}

std::string ts_data(const std::string& name) {
  const fs::path dir = fresh_dir(name + "_data");
  write_toy_ts(dir / "toy.ts", 3, 3, 60, 16);
  return (dir / "toy.ts").string();
}

} // namespace

TEST_CASE("model binary = JIT: Delta CDE", "[build][binary]") {
  check_same_as_jit("delta_cde",
                    {"examples/fwp_delta_cde.ode --set d_in=3 --set classes=3 --set heads=2 "
                     "--set d_head=4 --set d_ff=16",
                     ts_data("delta_cde"), "all"});
}

// `plastic build --backend cpp`: the kernels and the table as C++ compiled
// by Clang in process; the binary and the C++ JIT agree bit for bit too.
TEST_CASE("model binary = JIT: Delta CDE with the C++ backend", "[build][binary][cpp]") {
  check_same_as_jit("delta_cde_cpp",
                    {"examples/fwp_delta_cde.ode --set d_in=3 --set classes=3 --set heads=2 "
                     "--set d_head=4 --set d_ff=16",
                     ts_data("delta_cde_cpp"), "all"},
                    "cpp");
}

TEST_CASE("model binary = JIT: neural CDE", "[build][binary]") {
  check_same_as_jit(
      "ncde",
      {"examples/ncde_character.ode --set d_data=3 --set classes=3 --set hidden=8 --set d_f=16",
       ts_data("ncde"), "all"});
}

TEST_CASE("model binary = JIT: neural RDE", "[build][binary]") {
  check_same_as_jit(
      "nrde", {"examples/nrde_depth2.ode --set d_in=3 --set classes=3 --set hidden=8 --set d_f=16",
               ts_data("nrde"), "all"});
}

TEST_CASE("model binary = JIT: gated neural ODE", "[build][binary]") {
  check_same_as_jit("gnode", {"examples/gnode_flipflop.ode --set N=8 --set H=8",
                              "synthetic:flipflop", "validation"});
}

TEST_CASE("model binary = JIT: ODE-RFWP", "[build][binary]") {
  check_same_as_jit(
      "ode_rfwp", {"examples/ode_rfwp.ode --set d_obs=3 --set heads=2 --set d_head=4 --set d_ff=16",
                   "synthetic:flipflop", "validation"});
}

TEST_CASE("model binary: no LLVM or Clang library, runs alone in an empty folder",
          "[build][binary]") {
  const fs::path dir = fresh_dir("alone");
  Run b = run("build " + src("examples/gnode_flipflop.ode") +
              " --set N=8 --set H=8 --dtype f64 -o " + (dir / "gnode").string());
  INFO(b.err);
  REQUIRE(b.exit_code == 0);

  Run elf = shell("readelf -d " + (dir / "gnode").string());
  REQUIRE(elf.exit_code == 0);
  CHECK_THAT(elf.out, Catch::Contains("(NEEDED)")); // the check reads the right table
  std::string lower = elf.out;
  for (char& ch : lower)
    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  CHECK_THAT(lower,
             !Catch::Contains("llvm") && !Catch::Contains("clang") && !Catch::Contains("libfmt"));

  // A folder outside the source and build trees holding only the binary,
  // run with an environment that points nowhere near Plastic.
  const fs::path alone =
      fs::temp_directory_path() / fmt::format("plastic_binary_alone.{}", ::getpid());
  fs::remove_all(alone);
  fs::create_directories(alone);
  fs::copy_file(dir / "gnode", alone / "gnode");
  const std::string env = "cd " + alone.string() + " && env -i PATH=/usr/bin:/bin ./gnode ";
  Run info = shell(env + "info --json");
  INFO(info.err);
  REQUIRE(info.exit_code == 0);
  auto j = nlohmann::json::parse(info.out);
  CHECK(j["model"] == "gnode_flipflop");
  CHECK(j["dims"]["N"] == 8);
  CHECK(j["sets"]["H"] == 8);
  CHECK(j["source"]["file"] == "gnode_flipflop.ode");
  CHECK(j["source"]["fnv1a64"].get<std::string>().size() == 16);
  CHECK(j["dtype"] == "f64");
  CHECK(j["abi_version"] == PLASTIC_ABI_VERSION);
  CHECK(j["parameters"].size() > 2);
  Run train = shell(env + "train --data synthetic:flipflop --epochs 1 --no-progress --out run");
  INFO(train.out << train.err);
  CHECK(train.exit_code == 0);
  CHECK(fs::exists(alone / "run/model.safetensors"));
  Run bench = shell(env + "bench --json --batch 8 --length 20 --steps 1");
  INFO(bench.err);
  REQUIRE(bench.exit_code == 0);
  CHECK(nlohmann::json::parse(bench.out)["model"] == "gnode_flipflop");
  fs::remove_all(alone);
}

TEST_CASE("model binary: another model's or another --set's run folder is refused with both hashes",
          "[build][binary]") {
  const fs::path dir = fresh_dir("foreign");
  const std::string gnode = src("examples/gnode_flipflop.ode");
  REQUIRE(run("build " + gnode + " --set N=8 --set H=8 --dtype f64 -o " + (dir / "gnode8").string())
              .exit_code == 0);
  Run t = run("train " + gnode +
              " --set N=6 --set H=8 --data synthetic:flipflop --dtype f64 --epochs 1 "
              "--no-progress --out " +
              (dir / "run6").string());
  INFO(t.err);
  REQUIRE(t.exit_code == 0);
  const std::string theirs =
      nlohmann::json::parse(std::ifstream(dir / "run6/summary.json"))["model_hash"]
          .get<std::string>();
  const std::string ours =
      nlohmann::json::parse(shell((dir / "gnode8").string() + " info --json").out)["model_hash"]
          .get<std::string>();
  REQUIRE(theirs != ours);
  Run e = shell((dir / "gnode8").string() +
                " eval --data synthetic:flipflop --split validation --parameters " +
                (dir / "run6").string());
  CHECK(e.exit_code == 1);
  CHECK_THAT(e.err, Catch::Contains(theirs) && Catch::Contains(ours));

  // And parameters of another model altogether.
  const fs::path rfwp = dir / "rfwp";
  REQUIRE(run("build " + src("examples/ode_rfwp.ode") +
              " --set d_obs=3 --set heads=2 --set d_head=4 --set d_ff=16 --dtype f64 -o " +
              rfwp.string())
              .exit_code == 0);
  Run p =
      shell(rfwp.string() + " predict --data synthetic:flipflop --split validation --parameters " +
            (dir / "run6").string());
  CHECK(p.exit_code == 1);
  CHECK_THAT(p.err, Catch::Contains(theirs) && Catch::Contains("ode_rfwp-"));
}

TEST_CASE("model binary: the default binary reads a default `plastic train` run / a dtype "
          "mismatch is named as such",
          "[build][binary]") {
  const fs::path dir = fresh_dir("defaults");
  const std::string gnode = src("examples/gnode_flipflop.ode") + " --set N=6 --set H=8";
  REQUIRE(run("build " + gnode + " -o " + (dir / "gnode").string()).exit_code == 0);
  Run t = run("train " + gnode + " --data synthetic:flipflop --epochs 1 --no-progress --out " +
              (dir / "run").string());
  INFO(t.err);
  REQUIRE(t.exit_code == 0);
  Run e = shell((dir / "gnode").string() +
                " eval --data synthetic:flipflop --split validation --parameters " +
                (dir / "run").string());
  INFO(e.err);
  CHECK(e.exit_code == 0);

  Run t64 = run("train " + gnode + " --data synthetic:flipflop --dtype f64 --epochs 1 " +
                "--no-progress --out " + (dir / "run64").string());
  REQUIRE(t64.exit_code == 0);
  Run e64 = shell((dir / "gnode").string() +
                  " eval --data synthetic:flipflop --split validation --parameters " +
                  (dir / "run64").string());
  CHECK(e64.exit_code == 1);
  CHECK_THAT(e64.err, Catch::Contains("these parameters are F64 and this model is F32"));
}

TEST_CASE("model binary: --target x86-64-v3 code has no AVX-512 register, x86-64-v4 code has",
          "[build][binary]") {
  if (shell("llvm-objdump-19 --version").exit_code != 0) {
    WARN("llvm-objdump-19 is not installed; skipped");
    return;
  }
  const fs::path dir = fresh_dir("target");
  const std::string model =
      src("examples/fwp_delta_cde.ode") + " --set heads=2 --set d_head=4 --set d_ff=16 --dtype f32";
  auto disassembly = [&](const std::string& cpu) {
    const fs::path out = dir / cpu;
    Run b = run("build " + model + " --emit-obj --target " + cpu + " -o " + out.string());
    INFO(b.err);
    REQUIRE(b.exit_code == 0);
    Run d = shell("llvm-objdump-19 -d --no-show-raw-insn " + out.string() + ".o");
    REQUIRE(d.exit_code == 0);
    REQUIRE(d.out.size() > 1000);
    return d.out;
  };
  const std::string v3 = disassembly("x86-64-v3");
  CHECK_THAT(v3, Catch::Contains("ymm") && !Catch::Contains("zmm"));
  // Nor AVX-512VL's: its 256-bit registers above 15 and its mask registers.
  CHECK_FALSE(std::regex_search(v3, std::regex(R"(%ymm(1[6-9]|2[0-9]|3[01])\b|%k[0-7]\b)")));
  // The check can fail: the same model for an AVX-512 CPU uses zmm.
  CHECK_THAT(disassembly("x86-64-v4"), Catch::Contains("zmm"));

  // The binary of the AVX2 target uses 8-lane f32 tiles.
  Run b = run("build " + model + " --target x86-64-v3 -o " + (dir / "v3").string());
  INFO(b.err);
  REQUIRE(b.exit_code == 0);
  auto j = nlohmann::json::parse(shell((dir / "v3").string() + " info --json").out);
  CHECK(j["lanes"] == 8);
  CHECK(j["dtype"] == "f32");
  CHECK(j["target"]["cpu"] == "x86-64-v3");
}

TEST_CASE("model binary: flags, --dtype it was not built for, --version, and a missing compiler",
          "[build][binary]") {
  const fs::path dir = fresh_dir("flags");
  const std::string bin = (dir / "gnode").string();
  REQUIRE(run("build " + src("examples/gnode_flipflop.ode") +
              " --set N=6 --set H=8 --dtype f64 -o " + bin)
              .exit_code == 0);
  Run help = shell(bin + " --help");
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Catch::Contains("train") && Catch::Contains("predict") &&
                           Catch::Contains("bench") && Catch::Contains("info"));
  Run version = shell(bin + " --version");
  CHECK(version.exit_code == 0);
  CHECK_THAT(version.out, Catch::Contains("gnode_flipflop-") && Catch::Contains("plastic 0."));
  // The driver's flags, through the same code.
  Run train_help = shell(bin + " train --help");
  CHECK_THAT(train_help.out, Catch::Contains("--optimizer") && Catch::Contains("--resume") &&
                                 Catch::Contains("--schedule"));
  Run f32 = shell(bin + " train --data synthetic:flipflop --dtype f32");
  CHECK(f32.exit_code == 2);
  CHECK_THAT(f32.err, Catch::Contains("built for f64"));
  Run no_data = shell(bin + " eval --parameters x");
  CHECK(no_data.exit_code == 2);

  // No C++ compiler: a message that says what to install; --emit-obj still works.
  Run none = shell("env -u CXX PATH=/nonexistent " + std::string(PLASTIC_EXE) + " build " +
                   src("examples/gnode_flipflop.ode") + " -o " + (dir / "none").string());
  CHECK(none.exit_code == 1);
  CHECK_THAT(none.err, Catch::Contains("apt-get install g++"));
  CHECK_FALSE(fs::exists(dir / "none"));
  Run obj = shell("env -u CXX PATH=/nonexistent " + std::string(PLASTIC_EXE) + " build " +
                  src("examples/gnode_flipflop.ode") + " --emit-obj -o " + (dir / "obj").string());
  CHECK(obj.exit_code == 0);
  CHECK(fs::exists(dir / "obj.o"));
}

TEST_CASE("model binary: an installed plastic links with the installed runtime",
          "[build][binary]") {
  // `cmake --install` into a fresh prefix; the installed driver must find
  // the runtime libraries relative to itself (P/lib/plastic), not in the build tree.
  const fs::path prefix = fresh_dir("install") / "prefix";
  Run install = shell(std::string(PLASTIC_CMAKE_COMMAND) + " --install " + PLASTIC_BINARY_DIR +
                      " --prefix " + prefix.string());
  INFO(install.out << install.err);
  REQUIRE(install.exit_code == 0);
  REQUIRE(fs::exists(prefix / "lib/plastic/plastic-model-link.txt"));
  const fs::path bin = prefix.parent_path() / "gnode";
  Run b = shell((prefix / "bin/plastic").string() + " build " + src("examples/gnode_flipflop.ode") +
                " --set N=6 --set H=8 -o " + bin.string());
  INFO(b.err);
  REQUIRE(b.exit_code == 0);
  Run info = shell(bin.string() + " info --json");
  REQUIRE(info.exit_code == 0);
  CHECK(nlohmann::json::parse(info.out)["dims"]["N"] == 6);
  // Taking the manifest away shows the build really used the installed one.
  fs::remove(prefix / "lib/plastic/plastic-model-link.txt");
  Run missing =
      shell((prefix / "bin/plastic").string() + " build " + src("examples/gnode_flipflop.ode") +
            " -o " + (prefix.parent_path() / "none").string());
  CHECK(missing.exit_code == 3);
  CHECK_THAT(missing.err, Catch::Contains("runtime libraries"));
}
