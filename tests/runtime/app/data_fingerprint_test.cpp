// The data fingerprint a run records: the same files (even rewritten, with
// a new modification time, or copied elsewhere) are the same data; a
// changed byte, a file more or a renamed file is other data.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "runtime/app/data_fingerprint.h"

using namespace plastic::rt;
namespace fs = std::filesystem;

namespace {

fs::path fresh(const std::string& name) {
  fs::path dir = fs::temp_directory_path() /
                 ("plastic_fingerprint_" + name + "." + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary) << text;
}

} // namespace

TEST_CASE("a folder's fingerprint follows its contents, not its timestamps", "[fingerprint]") {
  fs::path dir = fresh("folder");
  write(dir / "a_TRAIN.ts", "1,2,3:1\n");
  write(dir / "a_TEST.ts", "4,5,6:0\n");
  auto f = fingerprint_data(dir.string());
  REQUIRE(f);
  CHECK(f->files == 2);
  CHECK(f->bytes == 16);
  CHECK(f->content_digest.size() == 16);
  CHECK(f->stat_digest.size() == 16);
  CHECK(same_data(dir.string(), *f).value());

  // Rewritten with the same bytes and an older timestamp: the stat digest
  // changes, the contents decide.
  write(dir / "a_TRAIN.ts", "1,2,3:1\n");
  fs::last_write_time(dir / "a_TRAIN.ts",
                      fs::last_write_time(dir / "a_TRAIN.ts") - std::chrono::hours(1));
  CHECK(fingerprint_data(dir.string())->stat_digest != f->stat_digest);
  CHECK(same_data(dir.string(), *f).value());

  // A copy elsewhere is the same data.
  fs::path copy = fresh("copy");
  fs::copy(dir, copy, fs::copy_options::recursive);
  CHECK(same_data(copy.string(), *f).value());

  // One byte changed, a file added, a file renamed: other data.
  write(dir / "a_TRAIN.ts", "1,2,4:1\n");
  CHECK_FALSE(same_data(dir.string(), *f).value());
  write(dir / "a_TRAIN.ts", "1,2,3:1\n");
  CHECK(same_data(dir.string(), *f).value());
  write(dir / "extra.ts", "");
  CHECK_FALSE(same_data(dir.string(), *f).value());
  fs::remove(dir / "extra.ts");
  fs::rename(dir / "a_TEST.ts", dir / "b_TEST.ts");
  CHECK_FALSE(same_data(dir.string(), *f).value());
}

TEST_CASE("synthetic data has an empty fingerprint / a missing path is an error", "[fingerprint]") {
  auto f = fingerprint_data("synthetic:flipflop");
  REQUIRE(f);
  CHECK(f->empty());
  auto missing = fingerprint_data("/nonexistent/plastic/data");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().exit_code == 1);
  CHECK_THAT(missing.error().message, Catch::Contains("/nonexistent/plastic/data"));
}

TEST_CASE("a fingerprint goes through JSON unchanged", "[fingerprint]") {
  fs::path dir = fresh("json");
  write(dir / "x.csv", "a,b\n1,2\n");
  auto f = fingerprint_data((dir / "x.csv").string());
  REQUIRE(f);
  const DataFingerprint back = fingerprint_from_json(fingerprint_json(*f));
  CHECK(back.files == f->files);
  CHECK(back.bytes == f->bytes);
  CHECK(back.stat_digest == f->stat_digest);
  CHECK(back.content_digest == f->content_digest);
  CHECK(fingerprint_from_json(nullptr).empty());
}
