// examples/embed against an installed Plastic, end to end: `cmake --install`
// into a fresh prefix, configure and build the example there with
// find_package(Plastic) and plastic_add_model, train a small model with
// `plastic train`, and require the example's class for every series of a
// .ts file to be the argmax of `plastic predict`'s outputs from the same run
// folder. Also: editing the model file recompiles it, and the program
// refuses another --set's parameters naming both hashes.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "tests/driver/cli_support.h"
#include "tests/support/toy_ts.h"

using namespace plastic::test;
namespace fs = std::filesystem;

namespace {

std::string hash_of(const fs::path& run_dir) {
  return nlohmann::json::parse(std::ifstream(run_dir / "summary.json"))["model_hash"]
      .get<std::string>();
}

} // namespace

TEST_CASE("examples/embed built against an installed Plastic classifies as `plastic predict`",
          "[embed][install]") {
  const fs::path dir =
      fs::path(PLASTIC_BINARY_DIR) / "embed_example_test" / std::to_string(::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path prefix = dir / "prefix";
  Run install = shell(std::string(PLASTIC_CMAKE_COMMAND) + " --install " + PLASTIC_BINARY_DIR +
                      " --prefix " + prefix.string());
  INFO(install.out << install.err);
  REQUIRE(install.exit_code == 0);
  REQUIRE(fs::exists(prefix / "lib/cmake/Plastic/PlasticConfig.cmake"));
  REQUIRE(fs::exists(prefix / "include/plastic/plastic.h"));

  // The model file is a copy, so that the test can edit it.
  const fs::path model = dir / "toy_cde.ode";
  fs::copy_file(src("examples/fwp_delta_cde.ode"), model);
  // d_in = 4: the data's 3 channels and the time channel training prepends.
  const std::string sets = "d_in=4;classes=3;heads=2;d_head=4;d_ff=16";
  const std::string set_flags =
      " --set d_in=4 --set classes=3 --set heads=2 --set d_head=4 --set d_ff=16";
  const fs::path data = dir / "toy.ts";
  write_toy_ts(data, 3, 3, 60, 16, 2, 777);

  const fs::path build = dir / "example";
  const std::string cmake = std::string(PLASTIC_CMAKE_COMMAND);
  Run configure = shell(
      cmake + " -S " + src("examples/embed") + " -B " + build.string() +
      " -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=" + prefix.string() +
      " -DPLASTIC_EXAMPLE_MODEL=" + model.string() + " \"-DPLASTIC_EXAMPLE_SET=" + sets + "\"");
  INFO(configure.out << configure.err);
  REQUIRE(configure.exit_code == 0);
  Run built = shell(cmake + " --build " + build.string());
  INFO(built.out << built.err);
  REQUIRE(built.exit_code == 0);
  CHECK_THAT(built.out, Catch::Contains("Compiling the Plastic model"));
  const std::string classify = (build / "classify").string();
  REQUIRE(fs::exists(classify));

  // The installed `plastic` trains; predict writes every split's outputs.
  const std::string plastic = (prefix / "bin/plastic").string();
  const fs::path run_dir = dir / "run";
  Run train = shell(plastic + " train " + model.string() + set_flags + " --data " + data.string() +
                    " --epochs 20 --lr 0.01 --batch 16 --no-progress --out " + run_dir.string());
  INFO(train.out << train.err);
  REQUIRE(train.exit_code == 0);
  REQUIRE(fs::exists(run_dir / "data.json"));
  const fs::path csv = dir / "predict.csv";
  Run predict =
      shell(plastic + " predict " + model.string() + set_flags + " --data " + data.string() +
            " --split all --parameters " + run_dir.string() + " --output " + csv.string());
  INFO(predict.err);
  REQUIRE(predict.exit_code == 0);
  std::map<std::string, std::string> expected; // series id -> class name (argmax)
  {
    std::ifstream in(csv);
    std::string line;
    std::getline(in, line); // header: the raw outputs are the columns y0, y1, ...
    std::vector<std::string> columns;
    {
      std::stringstream header(line);
      for (std::string name; std::getline(header, name, ',');)
        columns.push_back(name);
    }
    while (std::getline(in, line)) {
      std::stringstream row(line);
      std::string id, cell;
      int best = -1, k = 0;
      double best_value = -INFINITY;
      for (size_t c = 0; std::getline(row, cell, ','); ++c) {
        REQUIRE(c < columns.size());
        if (columns[c] == "sample") id = cell;
        if (columns[c].rfind('y', 0) != 0) continue;
        if (std::stod(cell) > best_value) best_value = std::stod(cell), best = k;
        ++k;
      }
      REQUIRE(k == 3);
      expected[id] = "c" + std::to_string(best);
    }
  }
  REQUIRE(expected.size() == 60);

  Run classified = shell(classify + " " + run_dir.string() + " " + data.string());
  INFO(classified.err);
  REQUIRE(classified.exit_code == 0);
  std::stringstream lines(classified.out);
  std::string id, cls;
  int compared = 0, agree = 0;
  std::map<std::string, int> per_class;
  while (lines >> id >> cls) {
    ++compared;
    ++per_class[cls];
    INFO(id);
    REQUIRE(expected.count(id) == 1);
    CHECK(cls == expected[id]);
    agree += cls == expected[id];
  }
  CHECK(compared == 60);
  CHECK(agree == compared);
  CHECK(per_class.size() == 3); // a trained model, not a constant answer

  // Another --set's parameters: refused, both hashes named.
  const fs::path other = dir / "run_other";
  Run t2 = shell(plastic + " train " + model.string() +
                 " --set d_in=4 --set classes=3 --set heads=2 --set d_head=4 --set d_ff=8" +
                 " --data " + data.string() + " --epochs 1 --no-progress --out " + other.string());
  REQUIRE(t2.exit_code == 0);
  Run foreign = shell(classify + " " + other.string() + " " + data.string());
  CHECK(foreign.exit_code == 1);
  CHECK_THAT(foreign.err, Catch::Contains(hash_of(other)) && Catch::Contains(hash_of(run_dir)));

  // Editing the model file recompiles it and relinks the program.
  std::ofstream(model, std::ios::app) << "\n# edited\n";
  Run rebuilt = shell(cmake + " --build " + build.string());
  INFO(rebuilt.out << rebuilt.err);
  REQUIRE(rebuilt.exit_code == 0);
  CHECK_THAT(rebuilt.out, Catch::Contains("Compiling the Plastic model") &&
                              Catch::Contains("Linking CXX executable classify"));
  Run nothing = shell(cmake + " --build " + build.string());
  CHECK_THAT(nothing.out, !Catch::Contains("Compiling the Plastic model"));
}
