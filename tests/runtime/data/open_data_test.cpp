// Resolving --data arguments: the generated task, real folders when the
// shared data is present, the time-channel rule, and clear errors.
#include <catch2/catch.hpp>

#include "runtime/data/data_dir.h"
#include "runtime/data/open_data.h"

using namespace plastic::rt;

TEST_CASE("synthetic:flipflop gives the paper's 500/100 split", "[open_data]") {
  DataOptions o;
  auto r = open_data("synthetic:flipflop", o);
  REQUIRE(r.ok());
  CHECK(r->train.size() == 500);
  CHECK(r->validation.size() == 100);
  CHECK(r->test.size() == 0);
  CHECK(r->train.num_channels() == 3);
  auto five = open_data("synthetic:flipflop:5", o);
  REQUIRE(five.ok());
  CHECK(five->train.num_channels() == 5);
  // The model wants time as an extra channel: prepended.
  o.model_channels = 4;
  auto timed = open_data("synthetic:flipflop", o);
  REQUIRE(timed.ok());
  CHECK(timed->train.num_channels() == 4);
  CHECK(timed->train.channels[0].kind == ChannelKind::Time);
}

TEST_CASE("bad data arguments say what is expected", "[open_data]") {
  DataOptions o;
  auto missing = open_data("/nonexistent/data.ts", o);
  REQUIRE(!missing.ok());
  CHECK_THAT(missing.error().describe(), Catch::Contains("no such file"));
  auto bits = open_data("synthetic:flipflop:x", o);
  REQUIRE(!bits.ok());
  CHECK_THAT(bits.error().describe(), Catch::Contains("1..64"));
  auto unknown = open_data("synthetic:spirals", o);
  REQUIRE(!unknown.ok());
  CHECK_THAT(unknown.error().describe(), Catch::Contains("known: synthetic:flipflop"));
  auto format = open_data(PLASTIC_SOURCE_DIR "/README.md", o);
  REQUIRE(!format.ok());
  CHECK_THAT(format.error().describe(), Catch::Contains("unknown data format"));
}

TEST_CASE("a UEA folder gives the given test file and a validation split", "[open_data]") {
  auto dir = find_data_dir(PLASTIC_SOURCE_DIR);
  if (!dir) {
    WARN("shared data not found (../shared/data or $PLASTIC_DATA): skipped");
    return;
  }
  DataOptions o;
  o.model_channels = 4; // 3 channels + time
  auto r = open_data((*dir / "uea/CharacterTrajectories").string(), o);
  REQUIRE(r.ok());
  CHECK(r->test.size() == 428);
  CHECK(r->train.size() + r->validation.size() == 1001);
  CHECK(r->validation.size() == Approx(150).margin(5));
  CHECK(r->train.num_channels() == 4);
  CHECK(r->train.classes.size() == 20);
}

TEST_CASE("whole keeps every sample for training and returns the normaliser", "[open_data]") {
  auto dir = find_data_dir(PLASTIC_SOURCE_DIR);
  if (!dir) {
    WARN("shared data not found (../shared/data or $PLASTIC_DATA): skipped");
    return;
  }
  DataOptions o;
  o.whole = true;
  auto r =
      open_data((*dir / "uea/CharacterTrajectories/CharacterTrajectories_TEST.ts").string(), o);
  REQUIRE(r.ok());
  CHECK(r->train.size() == 428);
  CHECK(r->validation.size() == 0);
  CHECK(r->test.size() == 0);
  CHECK(r->normaliser.has_value());
}
