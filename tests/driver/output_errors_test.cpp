// Output that cannot be written is a failed command (exit 1 naming what
// could not be written), never a success with truncated output nor an
// "internal error": standard output on a full device (/dev/full), and a
// predictions file on a full disk (the PLASTIC_FAIL_WRITE hook,
// runtime/io/write_faults.h), which leaves no truncated file behind.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "tests/driver/cli_support.h"

using namespace plastic::test;
namespace fs = std::filesystem;

namespace {

const std::string kModel = src("examples/gnode_flipflop.ode") + " --set N=8 --set H=8";
const std::string kData = " --data synthetic:flipflop --batch 50 --threads 1 ";

fs::path trained_run() {
  static const fs::path dir = [] {
    fs::path d =
        fs::path(PLASTIC_BINARY_DIR) / "output_errors_test" / ("run." + std::to_string(::getpid()));
    fs::remove_all(d);
    REQUIRE(
        run("train " + kModel + kData + "--epochs 1 --no-progress --out " + d.string()).exit_code ==
        0);
    return d;
  }();
  return dir;
}

} // namespace

TEST_CASE("standard output on a full device is exit 1, not success or a bug", "[cli][output]") {
  const std::string params = " --split validation --parameters " + trained_run().string();
  for (const std::string& cmd :
       {"eval " + kModel + kData + params, "predict " + kModel + kData + params,
        "train " + kModel + kData + "--epochs 1 --no-progress --force --out " +
            (trained_run().parent_path() / "again").string(),
        "check " + kModel}) {
    // stderr to the captured output, stdout to the full device.
    Run e = shell("{ " + std::string(PLASTIC_EXE) + " " + cmd + " 2>&1 >/dev/full; }");
    INFO(cmd << "\n" << e.out);
    CHECK(e.exit_code == 1);
    CHECK_THAT(e.out, Catch::Contains("cannot write to standard output"));
    // The device's own cause, even when stdio's write failed long before
    // the last flush and errno is gone (it said "Input/output error").
    CHECK_THAT(e.out, Catch::Contains("No space left on device"));
    CHECK_THAT(e.out, !Catch::Contains("internal error"));
  }
}

TEST_CASE("a predictions file on a full disk is exit 1 naming it, and not left truncated",
          "[cli][output]") {
  fs::path csv = trained_run().parent_path() / "pred.csv";
  Run r = shell("PLASTIC_FAIL_WRITE=1 " + std::string(PLASTIC_EXE) + " predict " + kModel + kData +
                " --split validation --parameters " + trained_run().string() + " --output " +
                csv.string());
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains(csv.string()));
  CHECK_THAT(r.err, Catch::Contains("No space left on device"));
  CHECK(!fs::exists(csv));
}

TEST_CASE("predict --output writes into a device or FIFO and through a link without replacing them",
          "[cli][output]") {
  // The predictions file used to be renamed over whatever the path named:
  // `--output /dev/full` exited 0 and left a regular file in /dev (issue 19).
  const fs::path dir = trained_run().parent_path() / "special";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string predict = std::string(PLASTIC_EXE) + " predict " + kModel + kData +
                              " --split validation --parameters " + trained_run().string() +
                              " --output ";
  // A full device: the device's own error, and the device is still there.
  Run full = shell(predict + "/dev/full");
  INFO(full.err);
  CHECK(full.exit_code == 1);
  CHECK_THAT(full.err, Catch::Contains("No space left on device"));
  CHECK(fs::is_character_file("/dev/full"));
  // A link: the file it names gets the predictions; the link stays a link.
  const fs::path target = dir / "target.csv", link = dir / "link.csv";
  fs::create_symlink(target.filename(), link);
  REQUIRE(shell(predict + link.string()).exit_code == 0);
  CHECK(fs::is_symlink(link));
  CHECK(fs::file_size(target) > 0);
  // A FIFO with a reader: the reader gets the predictions, the FIFO stays.
  const fs::path fifo = dir / "pipe";
  REQUIRE(shell("mkfifo " + fifo.string()).exit_code == 0);
  Run piped = shell("{ cat " + fifo.string() + " > " + (dir / "read.csv").string() + " & " +
                    predict + fifo.string() + "; s=$?; wait; exit $s; }");
  INFO(piped.err);
  CHECK(piped.exit_code == 0);
  CHECK(fs::is_fifo(fifo));
  CHECK(fs::file_size(dir / "read.csv") == fs::file_size(target));
}

TEST_CASE("a garbage data.json is refused with its bytes escaped", "[cli][output]") {
  const fs::path copy = trained_run().parent_path() / "garbage";
  fs::remove_all(copy);
  fs::copy(trained_run(), copy, fs::copy_options::recursive);
  std::ofstream(copy / "data.json", std::ios::binary) << "\xff\x1b[31mgarbage";
  Run r = run("eval " + kModel + " --parameters " + copy.string());
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("data.json: not a data record written by `train`"));
  CHECK_THAT(r.err, Catch::Contains("'\\xff'"));
  CHECK(r.err.find('\xff') == std::string::npos);
  CHECK(r.err.find('\x1b') == std::string::npos);
}
