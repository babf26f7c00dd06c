// Model paths that are not model files: a FIFO (which a blocking open would
// wait on forever), a folder, a symlink loop, a file too large to be a
// model — each a one-line reason, at once (issue 19, defect 7).
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "dsl/frontend.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;

TEST_CASE("reading a model refuses what is not a regular file", "[dsl][files]") {
  plastic::rt::test::TempDir tmp;
  const fs::path& dir = tmp.path();
  std::string text, why;

  const fs::path fifo = dir / "pipe.ode";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_FALSE(plastic::dsl::read_file(fifo.string(), text, &why)); // returns: no writer needed
  CHECK_THAT(why, Catch::Contains("not a regular file"));

  CHECK_FALSE(plastic::dsl::read_file(dir.string(), text, &why));
  CHECK_THAT(why, Catch::Contains("it is a folder"));

  const fs::path loop = dir / "loop.ode";
  fs::create_symlink(loop, loop);
  CHECK_FALSE(plastic::dsl::read_file(loop.string(), text, &why));
  CHECK_THAT(why, Catch::Contains("symbolic links"));

  const fs::path big = dir / "big.ode";
  std::ofstream(big).put('#');
  fs::resize_file(big, (uint64_t{64} << 20) + 1); // sparse: no disk used
  CHECK_FALSE(plastic::dsl::read_file(big.string(), text, &why));
  CHECK_THAT(why, Catch::Contains("at most 64 MB"));

  const fs::path good = dir / "good.ode";
  std::ofstream(good) << "model m\n";
  REQUIRE(plastic::dsl::read_file(good.string(), text, &why));
  CHECK(text == "model m\n");
}
