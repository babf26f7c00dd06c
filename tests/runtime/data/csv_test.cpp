// The CSV readers on small files: wide and long layouts, ids, times (plain,
// date + clock, ISO), missing markers and sentinels, decimal commas, quoted
// cells, labels and per-step targets; and malformed input.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "runtime/data/csv_reader.h"
#include "tests/runtime/data/data_test_support.h"

using namespace plastic::rt;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

bool same(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
  return true;
}

Dataset parsed(const std::string& text, const CsvOptions& o) {
  auto r = parse_csv(text, "m.csv", o);
  if (!r) FAIL(r.error().describe());
  REQUIRE(!r->check());
  return std::move(r).value();
}

std::string error_of(const std::string& text, const CsvOptions& o = {}) {
  auto r = parse_csv(text, "m.csv", o);
  REQUIRE_FALSE(r.ok());
  return r.error().describe();
}

} // namespace

TEST_CASE("CSV wide: ids, times, labels, missing markers and a sentinel", "[data][csv]") {
  CsvOptions o;
  o.id_column = "id";
  o.time_column = "t";
  o.label_column = "label";
  o.missing_value = -200;
  const Dataset d = parsed("id,t,a,b,label\n"
                           "s1,0,1.5,-200,x\n"
                           "s2,0,3,4,y\n"
                           "s1,1,NA,2,x\n"
                           "s1,2.5,\"5\",,x\n",
                           o);
  REQUIRE(d.size() == 2);
  CHECK(d.name == "m");
  REQUIRE(d.num_channels() == 2);
  CHECK(d.channels[0].name == "a");
  CHECK(d.channels[1].name == "b");
  CHECK(d.target_kind == TargetKind::Class);
  CHECK(d.classes == std::vector<std::string>{"x", "y"});
  CHECK(d.samples[0].id == "s1");
  CHECK(d.samples[0].times == std::vector<double>{0, 1, 2.5});
  CHECK(same(d.samples[0].values, {1.5, kNaN, kNaN, 2, 5, kNaN}));
  CHECK(d.samples[0].label == 0);
  CHECK(d.samples[1].id == "s2");
  CHECK(d.samples[1].values == std::vector<double>{3, 4});
  CHECK(d.samples[1].label == 1);
}

TEST_CASE("CSV wide: semicolon separator, decimal comma, date and clock columns", "[data][csv]") {
  CsvOptions o;
  o.separator = ';';
  o.decimal_point = ',';
  o.date_column = "Date";
  o.time_column = "Time";
  const Dataset d = parsed("Date;Time;CO(GT);T\n"
                           "10/03/2004;18.00.00;2,6;13,6\n"
                           "10/03/2004;19.00.00;-1,5e1;NaN\n"
                           "11/03/2004;00:30;0;1\n",
                           o);
  REQUIRE(d.size() == 1);
  CHECK(d.channels[0].name == "CO(GT)");
  // Hours since 1970-01-01: 2004-03-10 is day 12487.
  const double day = 12487 * 24.0;
  CHECK(d.samples[0].times == std::vector<double>{day + 18, day + 19, day + 24.5});
  CHECK(same(d.samples[0].values, {2.6, 13.6, -15, kNaN, 0, 1}));
}

TEST_CASE("CSV wide: quoted header, trailing separator, CRLF, per-step targets", "[data][csv]") {
  CsvOptions o;
  o.channels = {"uEst"};
  o.targets = {"yEst"};
  const Dataset d = parsed("\"uEst\",\"uVal\",\"yEst\",\"yVal\",\"Ts\",\r\n"
                           "3.25,0.5,5.2,4.9,4,\r\n"
                           "3.5,1,5.25,4.75,,\r\n"
                           "\r\n",
                           o);
  REQUIRE(d.size() == 1);
  CHECK(d.target_kind == TargetKind::RegressionPerStep);
  CHECK(d.targets == std::vector<std::string>{"yEst"});
  CHECK(d.samples[0].times == std::vector<double>{0, 1});
  CHECK(d.samples[0].values == std::vector<double>{3.25, 3.5});
  CHECK(d.samples[0].target == std::vector<double>{5.2, 5.25});
}

TEST_CASE("CSV wide: quoted cells with separators and escaped quotes / ISO times", "[data][csv]") {
  CsvOptions o;
  o.id_column = "name";
  o.time_column = "when";
  const Dataset d = parsed("name,when,v\n"
                           "\"a, \"\"b\"\"\",2004-03-10 18:00:00,1\n"
                           "\"a, \"\"b\"\"\",2004-03-10T19:30,2\n",
                           o);
  REQUIRE(d.size() == 1);
  CHECK(d.samples[0].id == "a, \"b\"");
  CHECK(d.samples[0].times == std::vector<double>{12487 * 24.0 + 18, 12487 * 24.0 + 19.5});
}

TEST_CASE("CSV wide: numeric class labels sort as numbers", "[data][csv]") {
  CsvOptions o;
  o.id_column = "id";
  o.label_column = "y";
  const Dataset d = parsed("id,v,y\na,1,10\nb,2,2\nc,3,1\n", o);
  CHECK(d.classes == std::vector<std::string>{"1", "2", "10"});
  CHECK(d.labels() == std::vector<int>{2, 1, 0});
  o.classes = {"10", "2", "1", "7"};
  const Dataset given = parsed("id,v,y\na,1,10\nb,2,2\nc,3,1\n", o);
  CHECK(given.classes == o.classes);
  CHECK(given.labels() == std::vector<int>{0, 1, 2});
}

TEST_CASE("CSV long: rows in any order merged by series and time", "[data][csv]") {
  CsvOptions o;
  o.layout = CsvLayout::Long;
  o.id_column = "id";
  o.time_column = "time";
  o.label_column = "class";
  const std::string text = "id,time,channel,value,class\n"
                           "b,2,x,1,neg\n"
                           "a,0,y,5,pos\n"
                           "a,0,x,4,pos\n"
                           "a,1,x,6,pos\n"
                           "b,1,y,7,neg\n";
  const Dataset d = parsed(text, o);
  REQUIRE(d.size() == 2);
  CHECK(d.channels[0].name == "x");
  CHECK(d.channels[1].name == "y");
  CHECK(d.samples[0].id == "b");
  CHECK(d.samples[0].times == std::vector<double>{1, 2});
  CHECK(same(d.samples[0].values, {kNaN, 7, 1, kNaN}));
  CHECK(d.samples[1].id == "a");
  CHECK(same(d.samples[1].values, {4, 5, 6, kNaN}));
  CHECK(d.classes == std::vector<std::string>{"neg", "pos"});
  CHECK(d.labels() == std::vector<int>{0, 1});

  o.channels = {"y"};
  const Dataset only_y = parsed(text, o);
  CHECK(only_y.num_channels() == 1);
  CHECK(only_y.samples[0].times == std::vector<double>{1});
  CHECK(only_y.samples[0].values == std::vector<double>{7});
  CHECK(only_y.samples[1].values == std::vector<double>{5});
}

TEST_CASE("CSV errors: cells and rows", "[data][csv][errors]") {
  CHECK(error_of("a,b\n1,2\n3\n") ==
        "m.csv:3:2: expected 2 cells as in the header (line 1), found 1");
  CHECK(error_of("a,b\n1,2,3\n") ==
        "m.csv:2:5: expected 2 cells as in the header (line 1), found 3");
  CHECK(error_of("a,b\n1,x\n") ==
        "m.csv:2:3: expected a number or a missing-value marker, found 'x'");
  CHECK(error_of("a,b\n1,2\n1,2,\n") ==
        "m.csv:3:5: expected 2 cells as in the header (line 1), found 3");
  CHECK(error_of("a,b\n1,\"2\n") ==
        "m.csv:2:3: expected a closing '\"' for the quoted cell opened here, found end of line");
  CHECK(error_of("a,b\n1,\"2\"x\n") ==
        "m.csv:2:6: expected the separator ',' or end of line after a closing quote, found 'x'");
  CHECK(error_of("") == "m.csv:1:1: expected a header line naming the columns, found end of file");
  CHECK(error_of("a,b\n") == "m.csv:2:1: expected rows after the header, found end of file");
  CHECK(error_of("a,b,a\n1,2,3\n") ==
        "m.csv:1:5: column 'a' appears twice in the header (first at column 1)");
  CsvOptions strict;
  strict.missing_markers = {};
  CHECK(error_of("a,b\n1,\n", strict) == "m.csv:2:3: expected a number, found an empty cell");
  CsvOptions comma;
  comma.separator = ';';
  comma.decimal_point = ',';
  CHECK(error_of("a;b\n1.5;2\n", comma) ==
        "m.csv:2:1: expected a number or a missing-value marker, found '1.5'");
}

TEST_CASE("CSV errors: columns, times, labels", "[data][csv][errors]") {
  CsvOptions t;
  t.time_column = "t";
  CHECK(error_of("a,b\n1,2\n", t) ==
        "m.csv:1:1: expected a column 't' (time) in the header, found only 'a', 'b'");
  CHECK(error_of("t,a\n0,1\n0,2\n", t) ==
        "m.csv:3:1: expected the time to increase within series 'm', found 0 after 0 (line 2)");
  CHECK(error_of("t,a\n,1\n", t) ==
        "m.csv:2:1: expected a time (a number or YYYY-MM-DD HH:MM:SS), found an empty cell");
  CsvOptions dt;
  dt.date_column = "Date";
  dt.time_column = "Time";
  CHECK(error_of("Date,Time,a\n32/01/2004,10:00:00,1\n", dt) ==
        "m.csv:2:1: expected a date (day/month/year), found '32/01/2004'");
  CHECK(error_of("Date,Time,a\n01/01/2004,25:00,1\n", dt) ==
        "m.csv:2:12: expected a clock time HH:MM[:SS], found '25:00'");
  CsvOptions l;
  l.id_column = "id";
  l.label_column = "l";
  CHECK(error_of("id,a,l\ns,1,x\ns,2,y\n", l) ==
        "m.csv:3:5: expected the label 'x' given to this series on line 2, found 'y'");
  l.classes = {"x"};
  CHECK(error_of("id,a,l\ns,1,x\nt,2,y\n", l) ==
        "m.csv:3:5: unknown class label 'y'; the classes given are: x");
  CsvOptions both = l;
  both.targets = {"a"};
  CHECK(error_of("id,a,l\ns,1,x\n", both) ==
        "m.csv: a label column and target columns cannot both be read: a sample has one target");
}

TEST_CASE("CSV errors: long layout", "[data][csv][errors]") {
  CsvOptions o;
  o.layout = CsvLayout::Long;
  o.id_column = "id";
  o.time_column = "time";
  CHECK(error_of("id,time,channel,value\na,0,x,1\na,0,x,2\n", o) ==
        "m.csv:3:7: expected one value per series, time and channel, found a second value of 'x' "
        "at time 0 (the "
        "first is on line 2)");
  CHECK(error_of("id,time,channel,value\na,0,,1\n", o) ==
        "m.csv:2:5: expected a channel name, found an empty cell");
  o.channels = {"x", "z"};
  CHECK(error_of("id,time,channel,value\na,0,x,1\n", o) ==
        "m.csv:1:9: expected channel 'z' in column 'channel', found no row for it");
  o.channels = {};
  o.time_column = "";
  CHECK(error_of("id,time,channel,value\na,0,x,1\n", o) ==
        "m.csv: the long layout needs a time column");
}

TEST_CASE("CSV: read from a file", "[data][csv]") {
  test::TempDir dir;
  const auto path = dir.write("series.csv", "a\n1\n2\n");
  auto r = read_csv(path, {});
  REQUIRE(r.ok());
  CHECK(r->name == "series");
  CHECK(r->samples[0].values == std::vector<double>{1, 2});
  auto missing = read_csv(dir.path() / "none.csv", {});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == "cannot open the file for reading: No such file or directory");
}
