// The Philox generator: known answers, exact state round trips, streams.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "runtime/support/rng.h"

using namespace plastic::rt;

TEST_CASE("Philox4x32-10 known-answer vectors (Random123 kat_vectors)", "[rng]") {
  using A4 = std::array<uint32_t, 4>;
  using A2 = std::array<uint32_t, 2>;
  CHECK(philox4x32_10(A4{0, 0, 0, 0}, A2{0, 0}) ==
        A4{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
  CHECK(philox4x32_10(A4{~0u, ~0u, ~0u, ~0u}, A2{~0u, ~0u}) ==
        A4{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
  CHECK(philox4x32_10(A4{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                      A2{0xa4093822, 0x299f31d0}) ==
        A4{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
  // The generator's first words are block 0 of stream 0 under key = seed.
  Rng r(0);
  CHECK(r.next_u32() == 0x6627e8d5);
  CHECK(r.next_u32() == 0xe169c58d);
}

TEST_CASE("RNG state round trip gives identical streams", "[rng]") {
  for (int consumed : {0, 1, 3, 4, 5, 11}) {
    Rng a(123456789, 3);
    for (int i = 0; i < consumed; ++i)
      a.next_u32();
    const std::string s = a.state();
    auto b = Rng::from_state(s);
    REQUIRE(b.ok());
    CHECK(b.value() == a);
    CHECK(b.value().state() == s);
    for (int i = 0; i < 50; ++i) {
      CHECK(a() == b.value()());
      CHECK(a.normal() == b.value().normal());
      CHECK(a.below(17) == b.value().below(17));
    }
  }
  for (const char* bad :
       {"", "philox4x32-10:", "mt19937:1:2:3:4", "philox4x32-10:0000000000000001:0:0:0",
        "philox4x32-10:0000000000000001:0000000000000000:0000000000000000:2",
        "philox4x32-10:0000000000000001:0000000000000000:0000000000000001:9",
        "philox4x32-10:000000000000000g:0000000000000000:0000000000000001:1"})
    CHECK_FALSE(Rng::from_state(bad).ok());
}

TEST_CASE("RNG streams depend only on seed and stream index", "[rng]") {
  Rng a = Rng::for_thread(7, 0), b = Rng::for_thread(7, 1), a2 = Rng::for_thread(7, 0), main(7);
  std::vector<uint64_t> xa, xb, xm;
  for (int i = 0; i < 100; ++i) {
    xa.push_back(a());
    xb.push_back(b());
    xm.push_back(main());
    CHECK(a2() == xa.back());
  }
  CHECK(xa != xb);
  CHECK(xa != xm);
  CHECK(Rng(8)() != Rng(7)());
}

TEST_CASE("RNG discard equals drawing", "[rng]") {
  for (uint64_t n : {0, 1, 2, 3, 4, 5, 9, 1000}) {
    for (int pre = 0; pre < 4; ++pre) {
      Rng a(99), b(99);
      for (int i = 0; i < pre; ++i) {
        a.next_u32();
        b.next_u32();
      }
      for (uint64_t i = 0; i < n; ++i)
        a.next_u32();
      b.discard(n);
      CHECK(a.next_u32() == b.next_u32());
    }
  }
}

TEST_CASE("RNG distributions", "[rng]") {
  Rng r(2024);
  const int n = 200000;
  double sum = 0, sq = 0, usum = 0;
  double umin = 1, umax = 0;
  for (int i = 0; i < n; ++i) {
    const double z = r.normal();
    sum += z;
    sq += z * z;
    const double u = r.uniform();
    usum += u;
    umin = std::min(umin, u);
    umax = std::max(umax, u);
  }
  // Standard errors: mean 1/sqrt(n) = 0.0022, variance sqrt(2/n) = 0.0032; allow 5 sigma.
  CHECK(std::fabs(sum / n) < 0.011);
  CHECK(std::fabs(sq / n - 1) < 0.016);
  CHECK(std::fabs(usum / n - 0.5) < 5 * 0.2887 / std::sqrt(n));
  CHECK(umin >= 0);
  CHECK(umax < 1);

  // below(n) stays in range and hits every value of a small range about equally often.
  std::vector<int> counts(6, 0);
  for (int i = 0; i < 60000; ++i) {
    const uint64_t k = r.below(6);
    REQUIRE(k < 6);
    ++counts[k];
  }
  for (int c : counts)
    CHECK(std::abs(c - 10000) < 500); // sd 91

  const auto p = permutation(1000, r);
  std::set<int64_t> seen(p.begin(), p.end());
  CHECK(seen.size() == 1000);
  CHECK(*seen.begin() == 0);
  CHECK(*seen.rbegin() == 999);
  CHECK_FALSE(std::is_sorted(p.begin(), p.end()));
}
