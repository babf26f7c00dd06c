// Learning-curve plots through gnuplot.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <vector>

#include "runtime/io/plot.h"
#include "tests/support/temp_dir.h"

using namespace plastic::rt;
using plastic::rt::test::TempDir;
namespace fs = std::filesystem;

namespace {
std::vector<EpochRecord> curve() {
  std::vector<EpochRecord> r;
  for (int e = 1; e <= 40; ++e) {
    EpochRecord x;
    x.epoch = e;
    x.train_loss = 2.0 * std::exp(-e / 10.0) + 0.05;
    x.valid_loss = e % 7 == 0 ? NAN : 2.1 * std::exp(-e / 12.0) + 0.1 + 0.002 * e;
    x.valid_metric = 1 - 0.9 * std::exp(-e / 8.0);
    x.metric_name = "accuracy";
    x.lr = e < 25 ? 1e-3 : 1e-4;
    r.push_back(x);
  }
  return r;
}
} // namespace

TEST_CASE("plot writes a PNG learning curve", "[plot]") {
  if (!find_executable("gnuplot")) {
    WARN("gnuplot is not installed: skipping the PNG check");
    return;
  }
  TempDir dir;
  PlotOptions o;
  o.title = "delta_cde on 'toy' data"; // a quote in the title must not break the script
  auto r = plot_learning_curve(curve(), dir / "curve.png", o);
  INFO(r.describe());
  REQUIRE(r.ok());
  CHECK(fs::file_size(r.value().png) > 1000);
  std::ifstream png(r.value().png, std::ios::binary);
  char sig[8] = {};
  png.read(sig, 8);
  CHECK(std::string(sig, 8) == "\x89PNG\r\n\x1a\n");
  CHECK(fs::exists(dir / "curve.dat"));
  CHECK(fs::exists(dir / "curve.gp"));
  // Keep a copy for a human to look at when PLASTIC_KEEP_PLOT names a path.
  if (const char* keep = std::getenv("PLASTIC_KEEP_PLOT"))
    fs::copy_file(r.value().png, keep, fs::copy_options::overwrite_existing);
}

TEST_CASE("plot without gnuplot says how to draw it later", "[plot]") {
  TempDir dir;
  PlotOptions o;
  o.gnuplot = "/nonexistent/bin/gnuplot";
  auto r = plot_learning_curve(curve(), dir / "curve.png", o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == TrainErrorKind::Unavailable);
  CHECK(r.error().advice.find("gnuplot-nox") != std::string::npos);
  CHECK(fs::exists(dir / "curve.dat"));
  CHECK(fs::exists(dir / "curve.gp"));
  CHECK_FALSE(fs::exists(dir / "curve.png"));
}

TEST_CASE("plot reports a failing gnuplot", "[plot]") {
  TempDir dir;
  PlotOptions o;
  o.gnuplot = "/bin/false"; // runs, exits 1
  auto r = plot_learning_curve(curve(), dir / "curve.png", o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("exit status 1") != std::string::npos);
}

TEST_CASE("a plot to a device or a folder is refused before anything is written", "[plot]") {
  TempDir dir;
  auto device = plot_learning_curve(curve(), "/dev/full");
  REQUIRE_FALSE(device.ok());
  CHECK(device.error().kind == TrainErrorKind::Io);
  CHECK(device.error().message.find("not a regular file") != std::string::npos);
  CHECK(fs::is_character_file("/dev/full"));
  CHECK_FALSE(fs::exists("/dev/full.dat"));
  fs::create_directory(dir / "folder.png");
  auto folder = plot_learning_curve(curve(), dir / "folder.png");
  REQUIRE_FALSE(folder.ok());
  CHECK(folder.error().message.find("it is a folder") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "folder.dat"));
}

TEST_CASE("a failed render keeps the old PNG and removes every file it wrote", "[plot]") {
  TempDir dir;
  std::ofstream(dir / "curve.png") << "the old plot";
  PlotOptions o;
  o.gnuplot = "/bin/false";
  auto r = plot_learning_curve(curve(), dir / "curve.png", o);
  REQUIRE_FALSE(r.ok());
  std::ifstream old(dir / "curve.png");
  std::string text((std::istreambuf_iterator<char>(old)), {});
  CHECK(text == "the old plot");
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir.path()))
    left.push_back(e.path().filename().string());
  CHECK(left == std::vector<std::string>{"curve.png"});
}
