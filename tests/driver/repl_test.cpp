// `plastic repl` as a person uses it: in a pseudo-terminal (the issue's
// "done when" session on the flip-flop gnODE, checking the screen after each
// step), and with --script (success, the first error ending the run with
// its exit code and a located diagnostic).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>

#include "tests/driver/cli_support.h"
#include "tests/driver/pty_session.h"
#include "tests/support/toy_ts.h"

using namespace plastic::test;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
  return fresh_test_dir("repl_test", name);
}

fs::path write_script(const fs::path& dir, const std::string& text) {
  fs::path file = dir / "session.repl";
  std::ofstream(file) << text;
  return file;
}

const std::string kFlipflop = "examples/gnode_flipflop.ode";

} // namespace

TEST_CASE("the REPL in a terminal: train, change N and the solver, evaluate, fail, recover, "
          "interrupt, leave",
          "[repl]") {
  fs::path dir = fresh_dir("pty");
  PtySession t({PLASTIC_EXE, "repl", src(kFlipflop), "--set", "N=6", "--set", "H=8", "--data",
                "synthetic:flipflop", "--dtype", "f64"},
               {"PLASTIC_HISTORY=" + (dir / "history").string(), "NO_COLOR=1", "TERM=xterm"});
  REQUIRE(t.started());
  REQUIRE(t.wait_for("plastic> "));
  CHECK_THAT(t.last(),
             Catch::Contains("model gnode_flipflop: 383 parameters") && Catch::Contains("f64"));

  t.type("set batch 50\n");
  REQUIRE(t.wait_for("plastic> "));

  // Two epochs: the data is opened, and the loop's per-epoch lines and summary show.
  t.type("train 2\n");
  REQUIRE(t.wait_for("plastic> "));
  CHECK_THAT(t.last(), Catch::Contains("500 training, 100 validation"));
  CHECK_THAT(t.last(), Catch::Contains("epoch 2/2: train loss"));

  // A dim change recompiles; the mlp's hidden layers keep their [8, 8] shape.
  t.type("N = 10\n");
  REQUIRE(t.wait_for("plastic> "));
  CHECK_THAT(t.last(), Catch::Contains("re-initialised"));
  CHECK_THAT(t.last(), Catch::Contains("Wz [10, 13]"));
  CHECK_THAT(t.last(), !Catch::Contains("F.layer1.weight"));

  // A solver change keeps every parameter.
  t.type("rk4 step 0.01\n");
  REQUIRE(t.wait_for("plastic> "));
  CHECK_THAT(t.last(), Catch::Contains("all parameters carried over"));
  t.type("info\n");
  REQUIRE(t.wait_for("plastic> "));
  CHECK_THAT(t.last(), Catch::Contains("solver    rk4") && Catch::Contains("N=10"));

  t.type("train 1\n");
  REQUIRE(t.wait_for("plastic> "));
  CHECK_THAT(t.last(), Catch::Contains("epoch 1/1: train loss"));

  // An expression on the current parameters and sample, through the interpreter.
  t.type("h(T)\n");
  REQUIRE(t.wait_for("plastic> "));
  CHECK_THAT(t.last(), Catch::Contains("[10] h(T) (sample 0 of the validation split)"));
  t.type("sigmoid(bz)\n");
  REQUIRE(t.wait_for("plastic> "));
  CHECK_THAT(t.last(), Catch::Contains("[10] sigmoid(bz)\n[0.") && Catch::Contains(", ..., "));

  // A statement with a shape error: the front end's located diagnostic,
  // and the previous model stays loaded.
  t.type("flow h' = Wz @ h\n");
  REQUIRE(t.wait_for("plastic> "));
  CHECK_THAT(t.last(),
             Catch::Contains("(edited):") && Catch::Contains("error:") && Catch::Contains("^"));
  t.type("info\n");
  REQUIRE(t.wait_for("plastic> "));
  CHECK_THAT(t.last(), Catch::Contains("solver    rk4") && Catch::Contains("N=10"));
  // Recovery: a correct flow (no gate) typed over two lines.
  t.type("flow h' =\n  (F(concat(h, x(t))) - h) / tau\n");
  REQUIRE(t.wait_for("plastic> "));
  CHECK_THAT(t.last(), Catch::Contains("all parameters carried over"));

  // Ctrl-C during a long training run: back at the prompt with the state kept.
  t.type("train 500\n");
  REQUIRE(t.wait_for("epoch 1/500"));
  t.type("\x03");
  REQUIRE(t.wait_for("plastic> "));
  CHECK_THAT(t.last(), Catch::Contains("interrupted after"));
  t.type("train 1\n");
  REQUIRE(t.wait_for("plastic> "));
  CHECK_THAT(t.last(), Catch::Contains("epoch 1/1: train loss"));

  // Ctrl-C at the prompt discards the line; Ctrl-D leaves.
  t.type("trai\x03");
  REQUIRE(t.wait_for("^C"));
  REQUIRE(t.wait_for("plastic> "));
  t.type("\x04");
  const int exit_code = t.wait_exit();
  INFO("the terminal showed:\n"
       << t.screen().substr(t.screen().size() > 600 ? t.screen().size() - 600 : 0));
  CHECK(exit_code == 0);
  // The history was saved for the next session (libedit's format escapes spaces).
  std::ifstream history(dir / "history");
  std::string saved((std::istreambuf_iterator<char>(history)), std::istreambuf_iterator<char>());
  CHECK_THAT(saved, Catch::Contains("rk4\\040step\\0400.01"));
}

TEST_CASE("the REPL's stability on a 1600-state model shows progress and stops at Ctrl-C",
          "[repl][signals]") {
  fs::path dir = fresh_dir("pty_stability");
  write_toy_ts(dir / "toy_TRAIN.ts", 2, 2, 12, 20);
  PtySession t({PLASTIC_EXE, "repl", src("examples/fwp_delta_cde_character.ode"), "--data",
                (dir / "toy_TRAIN.ts").string()},
               {"PLASTIC_HISTORY=" + (dir / "history").string(), "NO_COLOR=1", "TERM=xterm"});
  REQUIRE(t.started());
  REQUIRE(t.wait_for("plastic> "));
  CHECK_THAT(t.last(), Catch::Contains("state 1600"));
  t.type("stability\n");
  REQUIRE(t.wait_for("stability "));
  t.type("\x03");
  REQUIRE(t.wait_for("plastic> "));
  // How many states were done depends on the machine; the report says it.
  CHECK_THAT(t.last(), Catch::Contains("of 12 states (interrupted)"));
  // The session goes on, and Ctrl-C is again the prompt's.
  t.type("info\n");
  REQUIRE(t.wait_for("plastic> "));
  CHECK_THAT(t.last(), Catch::Contains("solver    rk4"));
  t.type("\x04");
  CHECK(t.wait_exit() == 0);
}

TEST_CASE("repl --script runs every command and exits 0", "[repl]") {
  fs::path dir = fresh_dir("script_ok");
  fs::path script = write_script(dir, "load " + src(kFlipflop) + R"(
# a comment, then dims, data and training options
N = 6
H = 8
data synthetic:flipflop
set batch 50
train 1
gradient adjoint
euler step 0.02
train 3 steps
eval validation
predict 0
params
emit stats
save )" + (dir / "run").string() + "\n");
  Run r = run("repl --script " + script.string() + " --dtype f64");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("plastic> train 1"));
  CHECK_THAT(r.out, Catch::Contains("trained 3 steps"));
  CHECK_THAT(r.out, Catch::Contains("validation  mse"));
  CHECK_THAT(r.out, Catch::Contains("field.vjp"));
  CHECK_THAT(r.out, Catch::Contains("F.layer1.weight          [8, 8]"));
  // The saved run folder is one `plastic eval` reads.
  Run e = run("eval " + (dir / "run/model.ode").string() +
              " --set N=6 --set H=8 --dtype f64 --data synthetic:flipflop --split validation "
              "--parameters " +
              (dir / "run").string());
  INFO(e.out << e.err);
  CHECK(e.exit_code == 0);
  CHECK_THAT(e.out, Catch::Contains("mse"));
}

TEST_CASE("the REPL traces a NaN to its model line in train and eval", "[repl]") {
  fs::path dir = fresh_dir("nonfinite");
  const std::string model = src("tests/driver/nonfinite/log_negative.ode");
  for (const char* command : {"eval validation", "train 1"}) {
    fs::path script =
        write_script(dir, std::string("data synthetic:flipflop\nset batch 100\n") + command + "\n");
    Run r = run("repl " + model + " --dtype f64 --script " + script.string());
    INFO(command << "\n" << r.out << r.err);
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.err, Catch::Contains("log_negative.ode:7:19: error: log of a negative value ("));
    CHECK_THAT(r.err, Catch::Contains("flow z' = W @ z + log(0.3 - t)"));
  }
}

TEST_CASE("the REPL's trajectory plot says so when it cannot write the plot", "[repl]") {
  fs::path dir = fresh_dir("trajectory_plot");
  fs::path script = write_script(dir, "load " + src(kFlipflop) +
                                          "\nN = 6\nH = 8\ndata synthetic:flipflop\n"
                                          "trajectory 0 plot /dev/full\n");
  Run r = run("repl --script " + script.string());
  INFO(r.out << r.err);
  CHECK_THAT(r.out, !Catch::Contains("plotted"));
  CHECK_THAT(r.err, Catch::Contains("/dev/full: i/o error: not a regular file"));
  CHECK(fs::is_character_file("/dev/full"));
  CHECK_FALSE(fs::exists("/dev/full.dat"));
}

TEST_CASE("the REPL's stability report follows the current parameters and solver", "[repl]") {
  // Paper 004's tanks models at initialisation: default init puts h·λ
  // outside the midpoint region at h = 4, the stability-informed init does
  // not (the same check as examples/experiments/tanks_stability.sh).
  fs::path dir = fresh_dir("stability");
  fs::path script =
      write_script(dir, "load " + src("examples/node_elu_default_tanks.ode") +
                            "\nstability\nload " + src("examples/node_elu_sii_tanks.ode") +
                            // Parameters carry over a load: reset draws SII's.
                            "\nreset\nstability plot " + (dir / "sii.png").string() + "\n");
  Run r = run("repl --script " + script.string());
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const size_t second = r.out.find("plastic> load", r.out.find("plastic> stability"));
  REQUIRE(second != std::string::npos);
  const std::string before = r.out.substr(0, second), after = r.out.substr(second);
  CHECK_THAT(before, Catch::Contains("states from         the origin"));
  CHECK_THAT(before, Catch::Matches("[\\s\\S]*outside the region +[1-9][\\s\\S]*"));
  CHECK_THAT(after, Catch::Matches("[\\s\\S]*outside the region +0 \\([\\s\\S]*"));
  CHECK(fs::exists(dir / "sii.png"));
}

TEST_CASE("repl --script stops at the first error with a located diagnostic", "[repl]") {
  fs::path dir = fresh_dir("script_error");
  fs::path script =
      write_script(dir, "load " + src(kFlipflop) + "\nN = 6\nH = 8\nflow h' = Wz @ h\ntrain 1\n");
  Run r = run("repl --script " + script.string());
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(std::regex_search(r.err, std::regex(R"(gnode_flipflop\.ode \(edited\):\d+:\d+: error:)")));
  CHECK_THAT(r.err, Catch::Contains(script.string() + ":4: the script stops"));
  CHECK_THAT(r.out, !Catch::Contains("plastic> train 1"));

  // An unknown command is a usage error (exit 2); stdin that is not a
  // terminal is a script too.
  Run u = shell("echo 'frobnicate 3' | " + std::string(PLASTIC_EXE) + " repl");
  CHECK(u.exit_code == 2);
  CHECK_THAT(u.err, Catch::Contains("unknown command 'frobnicate'"));
}

namespace {

// What the REPL's `info` reported about memory, in order.
struct MemoryReport {
  double resident = 0; ///< MiB
  double in_use = 0;   ///< MiB held by live allocations
};

std::vector<MemoryReport> memory_reports(const std::string& out) {
  std::vector<MemoryReport> reports;
  std::regex line(R"(memory +([0-9.]+) MiB resident, ([0-9.]+) MiB in live allocations)");
  for (auto it = std::sregex_iterator(out.begin(), out.end(), line); it != std::sregex_iterator();
       ++it)
    reports.push_back({std::stod((*it)[1].str()), std::stod((*it)[2].str())});
  return reports;
}

// Recompiles the flip-flop gnODE `cycles` times in one session, cycling
// through 12 values of N (more than the cache holds, so every one compiles
// and an old specialisation is dropped), after `warm_up` recompiles that let
// LLVM's and malloc's one-time allocations settle. Returns the growth of
// the resident set and of the live allocations over the measured cycles.
MemoryReport recompile_growth(int warm_up, int cycles) {
  fs::path dir = fresh_dir("recompile");
  std::string text = "load " + src(kFlipflop) + "\nH = 4\n";
  auto recompile = [&](int i) { text += "N = " + std::to_string(2 + i % 12) + "\n"; };
  for (int i = 0; i < warm_up; ++i)
    recompile(i);
  text += "info\n";
  for (int i = warm_up; i < warm_up + cycles; ++i)
    recompile(i);
  text += "info\n";
  Run r = run("repl --script " + write_script(dir, text).string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto m = memory_reports(r.out);
  REQUIRE(m.size() == 2);
  std::printf("REPL over %d recompiles: resident %.1f -> %.1f MiB, live allocations %.1f -> %.1f "
              "MiB\n",
              cycles, m[0].resident, m[1].resident, m[0].in_use, m[1].in_use);
  return {m[1].resident - m[0].resident, m[1].in_use - m[0].in_use};
}

} // namespace

TEST_CASE("recompiling in one session keeps the memory in use flat", "[repl]") {
  // A leaked specialisation (its IR, loop IR and machine code) costs about
  // a MiB; 24 of them would show as more than the bound. Measured on the
  // live allocations: the resident set also moves by several MiB when a
  // loaded machine makes malloc give a compile thread a fresh arena. Whole
  // cycles of the 12 sizes, so that both reports see the same cache.
  CHECK(recompile_growth(12, 24).in_use < 8);
}

TEST_CASE("500 recompiles in one session keep the resident set flat", "[repl][slow]") {
  // 500 leaked specialisations would be hundreds of MiB either way; the
  // resident set also sees machine code, which malloc does not hold.
  MemoryReport growth = recompile_growth(24, 504);
  CHECK(growth.in_use < 8);
  CHECK(growth.resident < 8);
}

TEST_CASE("examples/repl/compare_rules.repl compares Hebb, Oja and Delta in one session",
          "[repl]") {
  fs::path dir = fresh_dir("compare_rules");
  write_toy_ts(dir / "toy.ts", 3, 4, 80, 20);
  Run r =
      shell("cd " + src("") + " && " + PLASTIC_EXE +
            " repl --script examples/repl/compare_rules.repl --data " + (dir / "toy.ts").string() +
            " --set classes=4 --set heads=2 --set d_head=4 --set d_ff=8");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  // Each typed flow replaced the file's and kept every parameter.
  CHECK(std::regex_search(
      r.out, std::regex(R"(all parameters carried over[^]*all parameters carried over)")));
  CHECK(std::regex_search(
      r.out,
      std::regex(
          R"(label +split +accuracy +loss +epochs +parameters +solver\ndelta +validation +[0-9.]+ +[0-9.]+ +2 +300 +rk4\nhebb +validation .*\noja +validation .*\n)")));
}
