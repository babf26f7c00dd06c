// Malformed .ts input: every failure comes back as a value with
// file:line:col and what was expected, and no dataset.
#include <catch2/catch.hpp>

#include <string>

#include "runtime/data/ts_reader.h"

using namespace plastic::rt;

namespace {

// The message of a read that must fail.
std::string error_of(const std::string& text) {
  auto r = parse_ts(text, "mem.ts");
  REQUIRE_FALSE(r.ok());
  return r.error().describe();
}

const std::string kUni =
    "@univariate true\n@classLabel true a b\n@data\n"; // samples start on line 4

} // namespace

TEST_CASE(".ts errors: cells that are not numbers", "[data][ts][errors]") {
  CHECK(error_of(kUni + "1,2,abc:a\n") == "mem.ts:4:5: expected a number or '?', found 'abc'");
  CHECK(error_of(kUni + "1,,2:a\n") == "mem.ts:4:3: expected a number or '?', found ','");
  CHECK(error_of(kUni + "1,2,:a\n") == "mem.ts:4:5: expected a number or '?', found ':'");
  CHECK(error_of(kUni + "1,inf:a\n") ==
        "mem.ts:4:3: expected a number or '?', found 'inf' (infinite values are not accepted)");
  CHECK(error_of(kUni + "1,1e999:a\n") ==
        "mem.ts:4:3: expected a number or '?', found '1e999' (out of the range of a double)");
  CHECK(error_of(kUni + "1,2:a\n3,4,5x:b\n") == "mem.ts:5:5: expected a number or '?', found '5x'");
}

TEST_CASE(".ts errors: class labels", "[data][ts][errors]") {
  CHECK(error_of(kUni + "1,2:c\n") ==
        "mem.ts:4:5: unknown class label 'c'; @classLabel declares: a b");
  CHECK(error_of(kUni + "1,2:\n") == "mem.ts:4:5: expected a class label, found end of line");
  CHECK(error_of("@classLabel true a b a\n@data\n") ==
        "mem.ts:1:22: class label 'a' is declared twice");
  CHECK(error_of("@classLabel true\n@data\n") ==
        "mem.ts:1:17: expected the class labels after '@classLabel true', found end of line");
  CHECK(error_of("@univariate true\n@targetLabel true\n@data\n1,2:abc\n") ==
        "mem.ts:4:5: expected a number as the regression target, found 'abc'");
  CHECK(error_of("@classLabel true a\n@targetLabel true\n@data\n1:a\n") ==
        "mem.ts:2:1: @classLabel true and @targetLabel true cannot both hold: a sample has one "
        "target");
}

TEST_CASE(".ts errors: wrong number of dimensions", "[data][ts][errors]") {
  const std::string two = "@dimensions 2\n@classLabel true a b\n@data\n";
  CHECK(error_of(two + "1,2:3\n") == "mem.ts:4:6: expected 2 dimensions and a class label "
                                     "separated by ':', found end of line after 2 fields");
  CHECK(error_of(two + "1:2:3:a\n") ==
        "mem.ts:4:7: expected 2 dimensions and a class label separated by ':', found 4 fields");
  // Inferred from the first sample when the header does not say.
  CHECK(error_of("@classLabel true a\n@data\n1:2:a\n1:a\n") ==
        "mem.ts:4:4: expected 2 dimensions and a class label separated by ':', found end of line "
        "after 2 fields");
}

TEST_CASE(".ts errors: lengths against @seriesLength / @equalLength", "[data][ts][errors]") {
  const std::string h =
      "@univariate true\n@equalLength true\n@seriesLength 3\n@classLabel true a\n@data\n";
  CHECK(error_of(h + "1,2,3:a\n1,2:a\n") ==
        "mem.ts:7:4: expected 3 values (@seriesLength 3), found 2");
  CHECK(error_of(
            "@univariate true\n@equalLength true\n@classLabel true a\n@data\n1,2:a\n1,2,3:a\n") ==
        "mem.ts:6:6: expected 2 values (@equalLength true and the first sample), found 3");
}

TEST_CASE(".ts errors: header", "[data][ts][errors]") {
  CHECK(error_of("@univariate yes\n@data\n1\n") ==
        "mem.ts:1:13: expected 'true' or 'false' after @univariate, found 'yes'");
  CHECK(error_of("@dimensions two\n@data\n1\n") ==
        "mem.ts:1:13: expected a positive integer after @dimensions, found 'two'");
  CHECK(error_of("@univariate true\n@dimensions 3\n@data\n1\n") ==
        "mem.ts:2:1: @univariate true but @dimensions 3");
  CHECK(error_of("1,2:a\n") ==
        "mem.ts:1:1: expected a header line ('@...') or '@data' before the samples, found '1,2:a'");
  CHECK(error_of("@data extra\n") == "mem.ts:1:7: expected nothing after @data, found 'extra'");
}

TEST_CASE(".ts errors: truncated files", "[data][ts][errors]") {
  CHECK(error_of("") == "mem.ts:1:1: expected '@data' before the end of the file");
  CHECK(error_of("@univariate true\n@classLabel true a\n") ==
        "mem.ts:3:1: expected '@data' before the end of the file");
  CHECK(error_of("@univariate true\n@data\n") ==
        "mem.ts:3:1: expected a sample after @data, found end of file");
  // Cut in the middle of the last sample.
  CHECK(error_of("@dimensions 2\n@classLabel true a\n@data\n1,2:3,4:a\n1,2:3,") ==
        "mem.ts:5:7: expected 2 dimensions and a class label separated by ':', found end of line "
        "after 2 fields");
  CHECK(error_of(kUni + "1,2:a\n1,2") == "mem.ts:5:4: expected 1 dimension and a class label "
                                         "separated by ':', found end of line after 1 field");
}

TEST_CASE(".ts errors: time stamps", "[data][ts][errors]") {
  const std::string h = "@timeStamps true\n@univariate true\n@classLabel true a\n@data\n";
  CHECK(error_of(h + "(x,1):a\n") ==
        "mem.ts:5:2: expected a timestamp (a number or YYYY-MM-DD HH:MM:SS), found 'x'");
  CHECK(error_of(h + "(0,1),(1,q):a\n") == "mem.ts:5:10: expected a number or '?', found 'q'");
  CHECK(error_of(h + "(0,1)(1,2):a\n") ==
        "mem.ts:5:6: expected ',' or ':' after a pair, found '('");
  CHECK(error_of(h + "1,2:a\n") ==
        "mem.ts:5:1: expected '(' to open a (timestamp,value) pair, found '1'");
  CHECK(error_of(h + "(0,1),(0,2):a\n") == "mem.ts:5:8: timestamp 0 appears twice in dimension 0");
  CHECK(error_of("@timeStamps true\n@univariate true\n@data\n(0,1\n") ==
        "mem.ts:4:1: expected a pair '(timestamp,value)' closed by ')'");
}

TEST_CASE(".ts errors: a file that cannot be read", "[data][ts][errors]") {
  auto r = read_ts("/nonexistent/dir/x.ts");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().describe() ==
        "/nonexistent/dir/x.ts: cannot open the file for reading: No such file or directory");
}
