// Lyndon words and the log-signature dimension: β(d, N) from the Möbius
// formula of paper 002 (App. A), the word order of signatory's default
// "words" mode, and the standard bracketing used by "brackets" mode.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "runtime/logsig/lyndon.h"

using namespace plastic::rt;

namespace {
std::vector<std::string> spelled(const LyndonBasis& b) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < b.size(); ++i)
    out.push_back(b.to_string(i));
  return out;
}
} // namespace

TEST_CASE("Mobius function", "[logsig][lyndon]") {
  const int expect[] = {1, -1, -1, 0, -1, 1, -1, 0, 0, 1, -1, 0}; // μ(1..12)
  for (int n = 1; n <= 12; ++n)
    CHECK(mobius(n) == expect[n - 1]);
}

TEST_CASE("beta(d, N) table", "[logsig][lyndon]") {
  CHECK(logsig_dim(2, 1) == 2);
  CHECK(logsig_dim(2, 2) == 3);
  CHECK(logsig_dim(2, 3) == 5);
  CHECK(logsig_dim(2, 4) == 8);
  CHECK(logsig_dim(3, 2) == 6);
  CHECK(logsig_dim(3, 3) == 14);
  CHECK(logsig_dim(3, 4) == 32);
  CHECK(logsig_dim(1, 4) == 1);
  CHECK(logsig_dim(5, 3) == 55); // 5 + 10 + 40
  CHECK(tensor_dim(3, 3) == 39);
}

TEST_CASE("Duval generates beta(d, N) distinct Lyndon words", "[logsig][lyndon]") {
  for (int d = 1; d <= 5; ++d)
    for (int N = 1; N <= 5; ++N) {
      const LyndonBasis b(d, N);
      INFO("d=" << d << " N=" << N);
      CHECK(static_cast<std::int64_t>(b.size()) == logsig_dim(d, N));
      for (std::size_t i = 0; i < b.size(); ++i)
        CHECK(b.find(b.word(i)) == i);
    }
}

TEST_CASE("word order: by length, then lexicographic (signatory)", "[logsig][lyndon]") {
  CHECK(spelled(LyndonBasis(2, 4)) ==
        std::vector<std::string>{"0", "1", "01", "001", "011", "0001", "0011", "0111"});
  CHECK(spelled(LyndonBasis(3, 3)) == std::vector<std::string>{"0", "1", "2", "01", "02", "12",
                                                               "001", "002", "011", "012", "021",
                                                               "022", "112", "122"});
  const LyndonBasis b(3, 3);
  CHECK(b.level_begin(1) == 0);
  CHECK(b.level_begin(2) == 3);
  CHECK(b.level_begin(3) == 6);
  CHECK(b.level_begin(4) == 14);
  CHECK(b.level_index(b.find(std::vector<int>{0, 2, 1})) == 0 * 9 + 2 * 3 + 1);
  CHECK(b.find(std::vector<int>{1, 0}) == b.size()); // not a Lyndon word
}

TEST_CASE("standard bracketing and bracket expansion", "[logsig][lyndon]") {
  const LyndonBasis b(3, 4);
  auto at = [&](std::vector<int> w) { return b.find(w); };
  CHECK(b.bracket_string(at({0, 1})) == "[0,1]");
  CHECK(b.bracket_string(at({0, 1, 2})) == "[0,[1,2]]");
  CHECK(b.bracket_string(at({0, 2, 1})) == "[[0,2],1]");
  CHECK(b.bracket_string(at({0, 0, 1})) == "[0,[0,1]]");
  CHECK(b.bracket_string(at({0, 1, 1})) == "[[0,1],1]");
  CHECK(b.bracket_string(at({0, 1, 0, 2})) == "[[0,1],[0,2]]");
  // [0,[1,2]] = 012 - 021 - 120 + 210 (indices in base 3).
  using Terms = std::vector<std::pair<std::size_t, double>>;
  CHECK(expand_bracket(b, at({0, 1, 2})) == Terms{{5, 1.0}, {7, -1.0}, {15, -1.0}, {21, 1.0}});
  // [[0,1],1] = 011 - 2·101 + 110.
  CHECK(expand_bracket(b, at({0, 1, 1})) == Terms{{4, 1.0}, {10, -2.0}, {12, 1.0}});
}
