// The embedding API (runtime/embed/plastic.h) in-process, on a model loaded
// with dlopen from a shared object made of `plastic build --emit-obj`'s
// object: predictions equal `plastic predict`'s digit for digit (f64, same
// lanes), evaluate and train_step work on labelled series, and failures are
// values with the command line's messages (another model's parameters,
// series of the wrong width, a missing shared object, no parameters yet).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runtime/embed/plastic.h"
#include "tests/support/toy_ts.h"

using namespace plastic::embed;
namespace fs = std::filesystem;

namespace {

// Two threads, the rest as the defaults (Options has more members since).
Options two_threads() {
  Options o;
  o.threads = 2;
  return o;
}

int sh(const std::string& command) {
  return std::system(command.c_str());
}

struct Fixture {
  fs::path dir, so, run, data;
  std::string hash;
};

// One shared object and one f64 training run, made once for every case.
const Fixture& fixture() {
  static Fixture f = [] {
    Fixture x;
    x.dir = fs::path(PLASTIC_BINARY_DIR) / "embed_api_test" / std::to_string(::getpid());
    fs::remove_all(x.dir);
    fs::create_directories(x.dir);
    const std::string model = std::string(PLASTIC_SOURCE_DIR) +
                              "/examples/fwp_delta_cde.ode --set d_in=4 --set classes=3 "
                              "--set heads=2 --set d_head=4 --set d_ff=16 --dtype f64";
    const std::string plastic = std::string("env PLASTIC_LANES=4 ") + PLASTIC_EXE;
    x.data = x.dir / "toy.ts";
    plastic::test::write_toy_ts(x.data, 3, 3, 45, 12, 1, 99);
    const std::string quiet = " >" + (x.dir / "log").string() + " 2>&1";
    REQUIRE(sh(plastic + " build " + model + " --lanes 4 --emit-obj -o " +
               (x.dir / "toy").string() + quiet) == 0);
    const char* cxx = std::getenv("CXX");
    x.so = x.dir / "libtoy.so";
    REQUIRE(sh(std::string(cxx && *cxx ? cxx : "c++") + " -shared " + (x.dir / "toy.o").string() +
               " -o " + x.so.string() + quiet) == 0);
    x.run = x.dir / "run";
    REQUIRE(sh(plastic + " train " + model + " --data " + x.data.string() +
               " --epochs 10 --lr 0.01 --batch 8 --no-progress --threads 2 --out " +
               x.run.string() + quiet) == 0);
    REQUIRE(sh(plastic + " predict " + model + " --data " + x.data.string() +
               " --split all --threads 2 --parameters " + x.run.string() + " --output " +
               (x.dir / "predict.csv").string() + quiet) == 0);
    x.hash = nlohmann::json::parse(std::ifstream(x.run / "summary.json"))["model_hash"];
    return x;
  }();
  return f;
}

} // namespace

TEST_CASE("embed: a model from a shared object predicts as `plastic predict`", "[embed]") {
  const Fixture& f = fixture();
  auto model = Model::load_shared(f.so.string());
  INFO(model.describe());
  REQUIRE(model);
  CHECK(model->name() == "fwp_delta_cde");
  CHECK(model->hash() == f.hash);
  CHECK(model->table().lanes == 4);
  auto loaded = model->load_parameters(f.run.string());
  INFO(loaded.describe());
  REQUIRE(loaded);
  CHECK(model->classes() == std::vector<std::string>{"c0", "c1", "c2"});

  auto series = read_series(f.data.string());
  REQUIRE(series);
  REQUIRE(series->size() == 45);
  CHECK(series.value()[4].label == 1);
  auto pred = model->predict(series.value(), two_threads());
  INFO(pred.describe());
  REQUIRE(pred);
  REQUIRE(pred->size() == 45);

  // The CLI's rows, by series id, as it printed them.
  std::map<std::string, std::string> want;
  // Rebuilt as "id,time,y0,y1,..." from the columns the header names.
  std::ifstream in(f.dir / "predict.csv");
  std::string line;
  std::getline(in, line);
  std::vector<std::string> columns;
  {
    std::stringstream header(line);
    for (std::string name; std::getline(header, name, ',');)
      columns.push_back(name);
  }
  while (std::getline(in, line)) {
    std::stringstream cells(line);
    std::string id, time, outputs, cell;
    for (size_t c = 0; std::getline(cells, cell, ','); ++c) {
      REQUIRE(c < columns.size());
      if (columns[c] == "sample") id = cell;
      if (columns[c] == "time") time = cell;
      if (columns[c].rfind('y', 0) == 0) outputs += "," + cell;
    }
    want[id] = id + "," + time + outputs;
  }
  REQUIRE(want.size() == 45);
  for (const Prediction& p : pred.value()) {
    REQUIRE(p.rows() == 1);
    REQUIRE(p.width == 3);
    std::string row = p.id + "," + fmt::format("{}", p.times[0]);
    for (double v : p.outputs)
      row += "," + fmt::format("{}", v);
    CHECK(row == want[p.id]);
  }
}

TEST_CASE("embed: evaluate and train_step on labelled series", "[embed]") {
  const Fixture& f = fixture();
  auto model = Model::load_shared(f.so.string());
  REQUIRE(model);
  auto series = read_series(f.data.string());
  REQUIRE(series);

  // Before any parameters: a usage error, not a crash.
  auto early = model->predict(series.value());
  REQUIRE_FALSE(early);
  CHECK(early.error().exit_code == 2);
  CHECK_THAT(early.error().message, Catch::Contains("load_parameters"));

  REQUIRE(model->load_parameters(f.run.string()));
  auto m = model->evaluate(series.value(), two_threads());
  INFO(m.describe());
  REQUIRE(m);
  CHECK(m->metric_name == "accuracy");
  CHECK(m->samples == 45);
  CHECK(m->metric > 0.5); // trained for 10 epochs on an easy task
  CHECK(std::isfinite(m->loss));

  // Steps from a fresh initialisation lower the loss of their batch.
  REQUIRE(model->initialise(3));
  const std::vector<double> before = model->parameters();
  std::span<const Series> batch(series.value().data(), 16);
  double first = 0, last = 0;
  for (int step = 0; step < 8; ++step) {
    auto loss = model->train_step(batch, StepOptions{"adam", 0.02}, two_threads());
    INFO(loss.describe());
    REQUIRE(loss);
    (step == 0 ? first : last) = loss.value();
  }
  CHECK(last < first);
  CHECK(model->parameters() != before);

  // Unlabelled series cannot train.
  std::vector<Series> unlabelled(batch.begin(), batch.end());
  for (Series& s : unlabelled)
    s.label = -1;
  auto refused = model->train_step(unlabelled);
  REQUIRE_FALSE(refused);
  CHECK_THAT(refused.error().message, Catch::Contains("no targets"));
}

TEST_CASE("embed: failures are values with the command line's messages", "[embed]") {
  const Fixture& f = fixture();
  auto missing = Model::load_shared((f.dir / "nothing.so").string());
  REQUIRE_FALSE(missing);
  CHECK_THAT(missing.error().message, Catch::Contains("cannot load"));

  auto model = Model::load_shared(f.so.string());
  REQUIRE(model);
  // Another model's parameters (another --set): both hashes named.
  const fs::path other = f.dir / "other_run";
  REQUIRE(sh(std::string(PLASTIC_EXE) + " train " + PLASTIC_SOURCE_DIR +
             "/examples/fwp_delta_cde.ode --set d_in=4 --set classes=3 --set heads=2 "
             "--set d_head=4 --set d_ff=8 --dtype f64 --data " +
             f.data.string() + " --epochs 1 --no-progress --out " + other.string() + " >" +
             (f.dir / "log2").string() + " 2>&1") == 0);
  const std::string theirs =
      nlohmann::json::parse(std::ifstream(other / "summary.json"))["model_hash"];
  auto foreign = model->load_parameters(other.string());
  REQUIRE_FALSE(foreign);
  CHECK(foreign.error().exit_code == 1);
  CHECK_THAT(foreign.error().message, Catch::Contains(theirs) && Catch::Contains(f.hash));

  // Series of another width than the training data's.
  REQUIRE(model->load_parameters(f.run.string()));
  Series narrow{"narrow", {0, 1, 2}, {1, 2, 3, 4, 5, 6}, {}, -1, {}};
  auto wrong = model->predict(std::span<const Series>(&narrow, 1));
  REQUIRE_FALSE(wrong);
  CHECK_THAT(wrong.error().message,
             Catch::Contains("the series have 2 channels") && Catch::Contains("trained on 3"));
  // A series whose values do not fill its times, after a good one.
  std::vector<Series> two{Series{"good", {0, 1}, {1, 2, 3, 4, 5, 6}, {}, -1, {}},
                          Series{"ragged", {0, 1, 2}, {1, 2, 3, 4}, {}, -1, {}}};
  auto ragged = model->predict(two);
  REQUIRE_FALSE(ragged);
  CHECK_THAT(ragged.error().message, Catch::Contains("series 'ragged' (index 1)") &&
                                         Catch::Contains("4 values for 3 times"));
}
