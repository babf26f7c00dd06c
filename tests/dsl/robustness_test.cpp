// No input makes the front end crash, hang or throw: thousands of seeded
// mutations of the examples (byte edits, token swaps, truncations, deep
// nesting) must all come back as diagnostics. The libFuzzer target in
// tests/fuzz/ explores further; this is its deterministic, always-on cousin.
#include "tests/dsl/test_support.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <random>
#include <vector>

using namespace plastic;

namespace {
std::string mutate(std::string s, std::mt19937& rng) {
  static const std::vector<std::string> pieces = {
      "(",     ")",    "[",     "]",     "\n",           "@",    "'",  "=",        ",", "...",
      ":",     "let ", "flow ", "end\n", "layer l[a]\n", "\"",   "#",  "-",        "^", "0",
      "1e999", "x(t)", "dx(T)", "W(t0)", "mlp[",         "\xff", "\t", "softmax(", "-1"};
  int edits = 1 + static_cast<int>(rng() % 6);
  for (int i = 0; i < edits && !s.empty(); ++i) {
    size_t at = rng() % s.size();
    switch (rng() % 5) {
    case 0:
      s.erase(at, 1 + rng() % 8);
      break;
    case 1:
      s.insert(at, pieces[rng() % pieces.size()]);
      break;
    case 2:
      s[at] = static_cast<char>(rng() % 256);
      break;
    case 3:
      s.resize(at);
      break;
    case 4: {
      size_t from = rng() % s.size(), len = 1 + rng() % 40;
      s.insert(at, s.substr(from, len));
      break;
    }
    }
  }
  return s;
}
} // namespace

TEST_CASE("mutated models give diagnostics, never a crash", "[dsl][robustness]") {
  std::mt19937 rng(20261122);
  int runs = 0, rejected = 0;
  for (const auto& file : test::ode_files("examples")) {
    std::string text;
    REQUIRE(dsl::read_file(file.string(), text));
    for (int i = 0; i < 60; ++i) {
      std::string m = mutate(text, rng);
      dsl::CheckResult r;
      CHECK_NOTHROW(test::check_text(m, &r));
      ++runs;
      rejected += r.model == nullptr;
    }
  }
  CHECK(runs > 1000);
  CHECK(rejected > runs / 2); // most mutations break something, and are reported
}

TEST_CASE("pathological shapes of input are bounded", "[dsl][robustness]") {
  std::string deep = "model m\noutput o = " + std::string(100000, '(') + "1";
  std::string wide = "model m\noutput o = 1" + [] {
    std::string s;
    for (int i = 0; i < 100000; ++i)
      s += " + 1";
    return s;
  }();
  std::string calls = "model m\noutput o = f" + [] {
    std::string s;
    for (int i = 0; i < 50000; ++i)
      s += "(1)";
    return s;
  }();
  std::string minus = "model m\noutput o = " + std::string(100000, '-') + "1";
  for (const std::string& text :
       {deep, wide, calls, minus, std::string(1 << 20, '\n'), std::string("\0\0\0", 3)}) {
    dsl::CheckResult r;
    std::string out;
    CHECK_NOTHROW(out = test::check_text(text, &r));
    CHECK_FALSE(r.model);
    CHECK_FALSE(out.empty());
  }
}

TEST_CASE("a diagnostic inside the prelude outlives the failed check", "[dsl][robustness]") {
  // The checker reports a misapplied layer at its definition in the prelude;
  // a failed check destroys the parsed modules, so the engine must keep the
  // prelude's text for rendering (found by the fuzzer: a use after free,
  // caught under AddressSanitizer by .ci/sanitize).
  const std::string text = R"(model prelude_error
dim d_in = 3, hidden = 8, classes = 4
input x : path[d_in] cubic
input y : label[classes]
param out : linear[d_in, classes]
state z : [hidden] = 0
flow z' = -z
output logits = out(z(T))
loss cross_entropy(logits, y)
solve rk4 step 1.0
gradient direct
)";
  dsl::CheckResult r;
  std::string rendered = test::check_text(text, &r);
  CHECK(r.model == nullptr);
  CHECK(rendered.find("<prelude>:") != std::string::npos);
  CHECK(rendered.find("einsum(") != std::string::npos); // the prelude's source line is shown
}

namespace {
/// A model declaring `n` consts nothing uses.
std::string many_consts(int n) {
  std::string text = "model many\n";
  for (int i = 0; i < n; ++i)
    text += "const c" + std::to_string(i) + " = " + std::to_string(i) + "\n";
  return text + "input x : path[3] linear\ninput y : target[3] per observation\n"
                "param W : [3, 3] init glorot_uniform\nstate z : [3] = x(t0)\n"
                "flow z' = W @ z\noutput pred = z per observation\nloss mse(pred, y)\n"
                "solve euler step 0.01\ngradient direct\n";
}

/// Processor seconds (the process's, not the wall clock's: a loaded
/// machine's pauses and other jobs do not count) of one check of `text`.
double cpu_seconds_to_check(const std::string& text) {
  const std::clock_t t0 = std::clock();
  (void)test::check_text(text);
  return static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC;
}

/// How fast the time grows with the number of consts, over sizes doubling
/// from `first`: the median over the doublings of log2(time ratio), 1 for
/// linear growth, 2 for quadratic. Each size's time is the best of nine
/// checks, taken in rounds over every size so that a test running beside
/// this one (ctest -j) slows them alike; the median, not a fit, since on a
/// loaded machine the step past some cache's size can cost one doubling
/// several times the others (5.9x once, between 10000 and 20000 consts).
double growth_exponent(int first, int sizes, std::string& report) {
  std::vector<std::string> texts;
  for (int k = 0; k < sizes; ++k)
    texts.push_back(many_consts(first << k));
  std::vector<double> best(texts.size(), 1e300);
  for (int round = 0; round < 9; ++round)
    for (size_t k = 0; k < texts.size(); ++k)
      best[k] = std::min(best[k], cpu_seconds_to_check(texts[k]));
  std::vector<double> exponents;
  for (size_t k = 0; k < texts.size(); ++k) {
    report += std::to_string(first << k) + " consts: " + std::to_string(best[k]) + " s\n";
    if (k > 0) exponents.push_back(std::log2(best[k] / best[k - 1]));
  }
  std::sort(exponents.begin(), exponents.end());
  const size_t m = exponents.size();
  return m % 2 == 1 ? exponents[m / 2] : 0.5 * (exponents[m / 2 - 1] + exponents[m / 2]);
}
} // namespace

TEST_CASE("warnings past the limit are counted, not shown", "[dsl][robustness]") {
  const std::string out = test::check_text(many_consts(150));
  CHECK(std::count(out.begin(), out.end(), '\n') < 100 * 3 + 5); // 3 lines per warning
  CHECK_THAT(out, Catch::Contains("const 'c99' is never used"));
  CHECK_THAT(out, !Catch::Contains("const 'c100' is never used"));
  CHECK_THAT(out, Catch::Contains("plastic: 50 more warnings not shown (the limit is 100"));
}

TEST_CASE("checking grows linearly with the number of declarations", "[dsl][robustness]") {
  // A complexity check, not a timing: the time must grow about as fast as
  // the number of consts (a name search per declaration made it grow as its
  // square). Four doublings, not one ratio of two sizes, since the caches'
  // and the allocator's regimes change between single sizes.
  std::string report;
  const double exponent = growth_exponent(2500, 5, report);
  INFO(report << "growth exponent " << exponent);
  CHECK(exponent < 1.5);
}
