// Data paths that are not data files: a FIFO named like a UEA file (a
// blocking open would wait forever for a writer), a symlink loop, a folder
// named like a file, and a UEA folder holding a looping link beside its
// real files — clear errors at once, never a hang or an exception (issue 19,
// defect 7).
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "runtime/data/open_data.h"
#include "tests/support/temp_dir.h"
#include "tests/support/toy_ts.h"

using namespace plastic::rt;
namespace fs = std::filesystem;

namespace {

std::string error_of(const std::string& spec) {
  auto r = open_data(spec, DataOptions{});
  REQUIRE_FALSE(r.ok());
  return r.error().describe();
}

} // namespace

TEST_CASE("data paths that are not regular files are refused at once", "[open_data][files]") {
  plastic::rt::test::TempDir tmp;
  const fs::path& dir = tmp.path();
  const fs::path fifo = dir / "Pipe_TRAIN.ts";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THAT(error_of(fifo.string()), Catch::Contains("not a regular file"));

  const fs::path loop = dir / "loop.ts";
  fs::create_symlink(loop, loop);
  CHECK_THAT(error_of(loop.string()), Catch::Contains("symbolic links"));

  fs::create_directory(dir / "folder.ts");
  CHECK_THAT(error_of((dir / "folder.ts").string()), Catch::Contains("needs"));
}

TEST_CASE("a UEA folder with a looping link and a FIFO beside its files still opens",
          "[open_data][files]") {
  plastic::rt::test::TempDir tmp;
  const fs::path& dir = tmp.path();
  plastic::test::write_toy_ts(dir / "Toy_TRAIN.ts", 2, 3, 12, 10);
  plastic::test::write_toy_ts(dir / "Toy_TEST.ts", 2, 3, 6, 10);
  fs::create_symlink(dir / "Loop_TRAIN.ts", dir / "Loop_TRAIN.ts");
  REQUIRE(::mkfifo((dir / "Pipe_TEST.ts").c_str(), 0600) == 0);
  auto r = open_data(dir.string(), DataOptions{});
  REQUIRE(r.ok());
  CHECK(r->test.size() == 6);
}
