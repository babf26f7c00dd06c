// The .ts reader on small files written here: exact values, times, labels
// and the header variants (comments, case, CRLF, missing values, unequal
// lengths, time stamps, regression targets).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "runtime/data/ts_reader.h"
#include "tests/runtime/data/data_test_support.h"

using namespace plastic::rt;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Element-wise equality where NaN equals NaN.
bool same(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
  return true;
}

Dataset parsed(const std::string& text) {
  auto r = parse_ts(text, "mem.ts");
  if (!r) FAIL(r.error().describe());
  REQUIRE(!r->check());
  return std::move(r).value();
}

} // namespace

TEST_CASE(".ts: equal-length multivariate with class labels", "[data][ts]") {
  const Dataset d = parsed("# a comment\n"
                           "@problemName Toy\n"
                           "@timeStamps false\n"
                           "@missing false\n"
                           "@univariate false\n"
                           "@dimensions 2\n"
                           "@equalLength true\n"
                           "@seriesLength 3\n"
                           "@classLabel true up down\n"
                           "@data\n"
                           "1,2,3:4,5,6:down\n"
                           "-0.5,1e-3,+7:0,0,0:up\n");
  CHECK(d.name == "Toy");
  REQUIRE(d.size() == 2);
  REQUIRE(d.num_channels() == 2);
  CHECK(d.channels[0].name == "dim_0");
  CHECK(d.channels[1].name == "dim_1");
  CHECK(d.target_kind == TargetKind::Class);
  CHECK(d.classes == std::vector<std::string>{"up", "down"});
  CHECK(d.samples[0].label == 1);
  CHECK(d.samples[1].label == 0);
  CHECK(d.samples[0].times == std::vector<double>{0, 1, 2});
  // Row-major [time][channel]: dimension 0 is the first column.
  CHECK(d.samples[0].values == std::vector<double>{1, 4, 2, 5, 3, 6});
  CHECK(d.samples[1].values == std::vector<double>{-0.5, 0, 1e-3, 0, 7, 0});
  CHECK(d.samples[0].id == "mem:11");
}

TEST_CASE(".ts: unequal lengths, missing values, CRLF, blank lines, any-case keys", "[data][ts]") {
  const Dataset d = parsed("@PROBLEMNAME Ragged\r\n"
                           "@MISSING true\r\n"
                           "@Dimensions 2\r\n"
                           "@EqualLength false\r\n"
                           "@classlabel true 1 2 3\r\n"
                           "\r\n"
                           "@DATA\r\n"
                           "1,?,3:NaN,5,6:3\r\n"
                           "\r\n"
                           "# a comment among the samples\r\n"
                           " 7 , 8 : 9 , 10 :1\r\n");
  REQUIRE(d.size() == 2);
  CHECK(d.samples[0].length() == 3);
  CHECK(d.samples[1].length() == 2);
  CHECK(same(d.samples[0].values, {1, kNaN, kNaN, 5, 3, 6}));
  CHECK(d.samples[1].values == std::vector<double>{7, 9, 8, 10});
  CHECK(d.samples[0].label == 2);
  CHECK(d.samples[1].label == 0);
  CHECK(d.min_length() == 2);
  CHECK(d.max_length() == 3);
}

TEST_CASE(".ts: a dimension shorter than its sample's longest is padded with NaN", "[data][ts]") {
  const Dataset d =
      parsed("@dimensions 2\n@equalLength false\n@classLabel true a\n@data\n1,2,3:4:a\n");
  CHECK(same(d.samples[0].values, {1, 4, 2, kNaN, 3, kNaN}));
}

TEST_CASE(".ts: univariate, no labels / dimensions inferred from the first sample", "[data][ts]") {
  const Dataset u = parsed("@univariate true\n@classLabel false\n@data\n1,2\n3\n");
  CHECK(u.target_kind == TargetKind::None);
  CHECK(u.num_channels() == 1);
  CHECK(u.samples[0].values == std::vector<double>{1, 2});
  CHECK(u.samples[0].label == -1);
  CHECK(u.name == "mem");

  const Dataset m = parsed("@univariate false\n@classLabel true x\n@data\n1:2:3:x\n4:5:6:x\n");
  CHECK(m.num_channels() == 3);
  CHECK(m.samples[1].values == std::vector<double>{4, 5, 6});
}

TEST_CASE(".ts: @targetLabel true gives a regression target", "[data][ts]") {
  const Dataset d =
      parsed("@problemName R\n@univariate true\n@targetLabel true\n@data\n1,2,3:0.25\n4:-7\n");
  CHECK(d.target_kind == TargetKind::Regression);
  CHECK(d.targets == std::vector<std::string>{"target"});
  CHECK(d.samples[0].target == std::vector<double>{0.25});
  CHECK(d.samples[1].target == std::vector<double>{-7});
}

TEST_CASE(".ts: time stamps, numeric and date-time / dimensions on different times", "[data][ts]") {
  const Dataset d =
      parsed("@timeStamps true\n@dimensions 2\n@classLabel true a b\n@data\n"
             "(0,1.5),(2,2.5),(1,?):(1,10),(3,30):b\n"
             "(2004-08-10 18:00:00,1),(2004-08-10 19:30:00,2):(2004-08-10 19:30:00,3):a\n");
  REQUIRE(d.size() == 2);
  // Union of the times; each dimension NaN where it has no value.
  CHECK(d.samples[0].times == std::vector<double>{0, 1, 2, 3});
  CHECK(same(d.samples[0].values, {1.5, kNaN, kNaN, 10, 2.5, kNaN, kNaN, 30}));
  // Date-times are hours since 1970-01-01: 2004-08-10 is day 12640.
  CHECK(d.samples[1].times == std::vector<double>{12640 * 24 + 18, 12640 * 24 + 19.5});
  CHECK(same(d.samples[1].values, {1, kNaN, 2, 3}));
}

TEST_CASE(".ts: read from a file / the path names the samples", "[data][ts]") {
  test::TempDir dir;
  const auto path =
      dir.write("Small_TRAIN.ts", "@univariate true\n@classLabel true 0 1\n@data\n1,2:1\n");
  auto r = read_ts(path);
  REQUIRE(r.ok());
  CHECK(r->name == "Small_TRAIN");
  CHECK(r->samples[0].id == "Small_TRAIN:4");
}
