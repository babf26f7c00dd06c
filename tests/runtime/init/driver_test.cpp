// The initialisation driver: determinism for a seed, independence of
// parameters from each other, float = rounded double, offsets respected
// (nothing outside a parameter's range written), table validation with theta
// untouched on failure, the model-table overload, and describe_init.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "runtime/init/init.h"
#include "tests/runtime/init/init_test_util.h"

using namespace plastic::rt;
using namespace plastic::rt::test;

namespace {

/// A small table with gaps between the tensors (offsets 0, 20, 60, 100; theta 130).
std::vector<plastic_param> gapped_table() {
  return {
      make_param("a.w", {3, 5}, 0, PLASTIC_INIT_GLOROT_UNIFORM, {}, 5, 3),
      make_param("a.b", {3}, 20, PLASTIC_INIT_UNIFORM_FAN_IN, {}, 5, 0),
      make_param("q", {2, 4, 4}, 60, PLASTIC_INIT_ORTHOGONAL, {1.0}),
      make_param("c", {2, 3}, 100, PLASTIC_INIT_CONSTANT, {0.5}),
      make_param("crit", {4, 4}, 110, PLASTIC_INIT_CRITICAL, {0.0, 2.0}, 4, 4),
  };
}
constexpr size_t kThetaSize = 130;

template <class T> std::vector<T> run(const std::vector<plastic_param>& t, uint64_t seed) {
  std::vector<T> theta(kThetaSize, T(-777));
  auto r = initialise_parameters(std::span<const plastic_param>(t), std::span<T>(theta), seed);
  REQUIRE(r.ok());
  return theta;
}

} // namespace

TEST_CASE("same seed gives identical theta, another seed differs", "[init][driver]") {
  const auto t = gapped_table();
  CHECK(run<double>(t, 11) == run<double>(t, 11));
  const auto a = run<double>(t, 11), b = run<double>(t, 12);
  for (const auto& p : t) {
    if (p.init == PLASTIC_INIT_CONSTANT) continue;
    bool differs = false;
    for (int64_t k = 0; k < p.size; ++k)
      differs |= a[static_cast<size_t>(p.offset + k)] != b[static_cast<size_t>(p.offset + k)];
    CHECK(differs);
  }
}

TEST_CASE("float results are the double results rounded once", "[init][driver]") {
  const auto t = gapped_table();
  const auto d = run<double>(t, 5);
  const auto f = run<float>(t, 5);
  for (size_t i = 0; i < kThetaSize; ++i)
    REQUIRE(f[i] == static_cast<float>(d[i]));
}

TEST_CASE("nothing outside a parameter's range is written", "[init][driver]") {
  const auto t = gapped_table();
  const auto theta = run<double>(t, 9);
  std::vector<bool> owned(kThetaSize, false);
  for (const auto& p : t)
    for (int64_t k = 0; k < p.size; ++k)
      owned[static_cast<size_t>(p.offset + k)] = true;
  for (size_t i = 0; i < kThetaSize; ++i) {
    INFO("element " << i);
    if (owned[i])
      CHECK(theta[i] != -777.0);
    else
      CHECK(theta[i] == -777.0);
  }
}

TEST_CASE("a parameter's values do not depend on the other entries of the table",
          "[init][driver]") {
  // Streams are keyed by name: reordering, moving and adding tensors leaves
  // each tensor's values unchanged (a dim change elsewhere keeps the rest).
  auto t = gapped_table();
  const auto before = run<double>(t, 21);
  std::vector<plastic_param> moved = {t[4], t[2], t[0]};
  moved[0].offset = 0;  // crit 16
  moved[1].offset = 16; // q 32
  moved[2].offset = 50; // a.w 15
  moved.push_back(make_param("new", {10}, 70, PLASTIC_INIT_NORMAL, {1.0, 0.0}));
  const auto after = run<double>(moved, 21);
  for (size_t j = 0; j < 3; ++j) {
    const plastic_param& orig = j == 0 ? t[4] : j == 1 ? t[2] : t[0];
    for (int64_t k = 0; k < orig.size; ++k)
      REQUIRE(after[static_cast<size_t>(moved[j].offset + k)] ==
              before[static_cast<size_t>(orig.offset + k)]);
  }
}

TEST_CASE("an inconsistent table is reported and theta left untouched", "[init][driver]") {
  auto expect_error = [](std::vector<plastic_param> t, size_t theta_size, const char* needle) {
    std::vector<double> theta(theta_size, 3.25);
    auto r = initialise_parameters(std::span<const plastic_param>(t), std::span<double>(theta), 1);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().describe(), Catch::Contains(needle));
    for (double x : theta)
      REQUIRE(x == 3.25);
  };
  auto t = gapped_table();
  t[1].offset = 14; // a.b [14, 17) overlaps a.w [0, 15)
  expect_error(t, kThetaSize, "overlap");
  expect_error(gapped_table(), 120, "outside theta");
  t = gapped_table();
  t[3].size = 7;
  expect_error(t, kThetaSize, "not the product");
  t = gapped_table();
  t[2].name = "a.w";
  expect_error(t, kThetaSize, "appears twice");
  // The failure of the last entry must not leave the earlier ones written.
  t = gapped_table();
  t[4].fan_in = 0;
  expect_error(t, kThetaSize, "fan_in");
}

TEST_CASE("model overload checks dtype and size and reads the solver", "[init][driver]") {
  auto t = gapped_table();
  t.push_back(make_param("mlp.w1", {8, 2}, 0, PLASTIC_INIT_STABILITY_INFORMED, {0.0, 0.0, 0.0, 1.0},
                         2, 8, 0, 0));
  t.push_back(make_param("mlp.w2", {2, 8}, 0, PLASTIC_INIT_STABILITY_INFORMED, {0.0, 0.0, 0.0, 1.0},
                         8, 2, 0, 1));
  t[5].offset = 130;
  t[6].offset = 146;
  plastic_model m{};
  m.abi_version = PLASTIC_ABI_VERSION;
  m.struct_size = sizeof(plastic_model);
  m.name = "toy";
  m.dtype = PLASTIC_F64;
  m.n_params = 162;
  m.n_param_entries = static_cast<int32_t>(t.size());
  m.params = t.data();
  m.solver.method = "rk4";
  m.solver.step = 0.25;

  std::vector<double> theta(162, 0.0);
  auto r = initialise_parameters(m, std::span<double>(theta), 4);
  REQUIRE(r.ok());
  REQUIRE(r.value().stability_groups.size() == 1);
  CHECK(r.value().stability_groups[0].solver == "rk4");
  CHECK(r.value().stability_groups[0].h == 0.25); // args[0] = 0 -> the model's step

  std::vector<float> theta_f(162, 0.0f);
  auto wrong_type = initialise_parameters(m, std::span<float>(theta_f), 4);
  REQUIRE_FALSE(wrong_type.ok());
  CHECK_THAT(wrong_type.error().describe(), Catch::Contains("f64 but theta is f32"));

  std::vector<double> short_theta(100, 0.0);
  auto wrong_size = initialise_parameters(m, std::span<double>(short_theta), 4);
  REQUIRE_FALSE(wrong_size.ok());
  CHECK_THAT(wrong_size.error().describe(), Catch::Contains("162 parameters"));

  // Without a model there is no solver: the stability group says how to give one.
  std::vector<double> th(162, 0.0);
  auto no_solver =
      initialise_parameters(std::span<const plastic_param>(t), std::span<double>(th), 4);
  REQUIRE_FALSE(no_solver.ok());
  CHECK_THAT(no_solver.error().describe(), Catch::Contains("InitOptions::solver"));
}

TEST_CASE("describe_init gives short resolved descriptions", "[init][describe]") {
  CHECK(describe_init(make_param("w", {3, 4}, 0, PLASTIC_INIT_GLOROT_UNIFORM)) ==
        "glorot_uniform(gain 1)");
  CHECK(describe_init(make_param("w", {3, 4}, 0, PLASTIC_INIT_KAIMING_NORMAL)) ==
        "kaiming_normal(gain 1.41421)");
  CHECK(describe_init(make_param("w", {3, 4}, 0, PLASTIC_INIT_UNIFORM_FAN_IN, {}, 4)) ==
        "uniform_fan_in(fan_in 4)");
  CHECK(describe_init(make_param("w", {3, 4}, 0, PLASTIC_INIT_ORTHOGONAL, {2.0})) ==
        "orthogonal(gain 2)");
  CHECK(describe_init(make_param("b", {4}, 0, PLASTIC_INIT_ZEROS)) == "zeros");
  CHECK(describe_init(make_param("b", {4}, 0, PLASTIC_INIT_CONSTANT, {0.1})) == "constant(0.1)");
  CHECK(describe_init(make_param("b", {4}, 0, PLASTIC_INIT_NORMAL, {0.02, 0.0})) ==
        "normal(std 0.02, mean 0)");
  CHECK(describe_init(make_param("b", {4}, 0, PLASTIC_INIT_UNIFORM, {-1.0, 1.0})) ==
        "uniform(-1, 1)");
  CHECK(describe_init(make_param("w", {4, 4}, 0, PLASTIC_INIT_CRITICAL, {0.0, 3.0})) ==
        "critical(sigma_w 1.25992, layers 3)");
  CHECK(describe_init(make_param("w", {4, 4}, 0, PLASTIC_INIT_STABILITY_INFORMED,
                                 {0.1, 0.0, 50.0, 1.0}, 4, 4, 2, 0)) ==
        "stability_informed(h 0.1, radius 3, tries 50, complex, group 2)");
  CHECK(describe_init(make_param("w", {4}, 0, 77)) == "unknown init kind 77");
}
