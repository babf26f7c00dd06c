// The data flags (data_flags.h): what each means for the readers, usage
// errors for malformed values, the run folder's record and how --resume and
// eval combine it with flags given again.
#include <catch2/catch.hpp>

#include <filesystem>
#include <unistd.h>

#include "runtime/app/data_flags.h"
#include "runtime/app/preprocessing.h"

using namespace plastic::rt;
using plastic::Status;
namespace fs = std::filesystem;

TEST_CASE("data flags fill the CSV options and the shaping", "[app][data_flags]") {
  DataFlags f;
  f.target = "C6H6_GT, NOx_GT";
  f.time = "Date,Time";
  f.date_order = "mdy";
  f.statics = "C6H6_GT";
  f.window = "24";
  f.period = "4";
  f.decimal = ",";
  f.missing = "-200";
  DataOptions o;
  REQUIRE(apply_data_flags(f, o));
  CHECK(o.csv.targets == std::vector<std::string>{"C6H6_GT", "NOx_GT"});
  CHECK(o.csv.date_column == "Date");
  CHECK(o.csv.time_column == "Time");
  CHECK(o.csv.date_order == DateOrder::MonthDayYear);
  CHECK(o.csv.decimal_point == ',');
  CHECK(o.csv.separator == ';'); // the European convention unless --sep says otherwise
  CHECK(o.csv.missing_value == -200);
  CHECK(o.shaping.statics == std::vector<std::string>{"C6H6_GT"});
  CHECK(o.shaping.window == 24);
  CHECK(o.shaping.period == 4);

  DataFlags next;
  next.target = "next";
  next.sep = "tab";
  DataOptions n;
  REQUIRE(apply_data_flags(next, n));
  CHECK(n.shaping.target_next);
  CHECK(n.csv.targets.empty());
  CHECK(n.csv.separator == '\t');
}

TEST_CASE("malformed data flags are usage errors naming the flag", "[app][data_flags]") {
  const auto refused = [](DataFlags f) {
    DataOptions o;
    const Status<AppError> s = apply_data_flags(f, o);
    REQUIRE(!s);
    CHECK(s.error().exit_code == kUsageError);
    return s.error().message;
  };
  DataFlags f;
  f.window = "1";
  CHECK(refused(f).rfind("--window:", 0) == 0);
  f = {};
  f.window = "2.5";
  CHECK(refused(f).rfind("--window:", 0) == 0);
  f = {};
  f.period = "nan";
  CHECK(refused(f).rfind("--period:", 0) == 0);
  f = {};
  f.target = "a,,b";
  CHECK(refused(f).rfind("--target:", 0) == 0);
  f = {};
  f.time = "a,b,c";
  CHECK(refused(f).rfind("--time:", 0) == 0);
  f = {};
  f.sep = ",,";
  CHECK(refused(f).rfind("--sep:", 0) == 0);
  f = {};
  f.decimal = ",";
  f.sep = ",";
  CHECK(refused(f).rfind("--sep:", 0) == 0);
  f = {};
  f.date_order = "ydm";
  CHECK(refused(f).rfind("--date-order:", 0) == 0);
}

TEST_CASE("the run folder records the flags / --resume keeps them, eval fills the gaps",
          "[app][data_flags]") {
  const fs::path dir =
      fs::temp_directory_path() / ("plastic-data-flags-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  Preprocessing p;
  p.raw_channels = 1;
  p.channels = {"uEst"};
  p.data_flags.target = "yEst";
  p.data_flags.window = "64";
  REQUIRE(write_preprocessing(dir, p));
  auto back = read_preprocessing(dir);
  REQUIRE(back);
  REQUIRE(back.value());
  CHECK(back.value()->data_flags == p.data_flags);

  DataFlags none;
  REQUIRE(recall_data_flags(dir, RecordedFlags::Resume, none));
  CHECK(none == p.data_flags);

  DataFlags same;
  same.window = "64";
  REQUIRE(recall_data_flags(dir, RecordedFlags::Resume, same));
  CHECK(same == p.data_flags);

  DataFlags changed;
  changed.window = "32";
  const Status<AppError> s = recall_data_flags(dir, RecordedFlags::Resume, changed);
  REQUIRE(!s);
  CHECK(s.error().exit_code == kUsageError);
  CHECK(s.error().message.find("--window 64") != std::string::npos);

  DataFlags other = changed; // eval on other columns: what is given wins
  REQUIRE(recall_data_flags(dir, RecordedFlags::Reuse, other));
  CHECK(other.window == "32");
  CHECK(other.target == "yEst");
  fs::remove_all(dir);
}
