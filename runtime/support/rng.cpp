// Philox4x32-10 and the distributions on top of it (see rng.h).
#include "runtime/support/rng.h"

#include <charconv>
#include <cmath>
#include <numbers>
#include <numeric>

#include <fmt/format.h>

namespace plastic::rt {

std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> c, std::array<uint32_t, 2> k) {
  // Multipliers and Weyl key increments of the reference (Random123).
  constexpr uint64_t M0 = 0xD2511F53, M1 = 0xCD9E8D57;
  constexpr uint32_t W0 = 0x9E3779B9, W1 = 0xBB67AE85;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k[0] += W0;
      k[1] += W1;
    }
    const uint64_t p0 = M0 * c[0], p1 = M1 * c[2];
    c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<uint32_t>(p0)};
  }
  return c;
}

Rng::Rng(uint64_t seed, uint64_t stream) : seed_(seed), stream_(stream) {}

void Rng::refill() {
  buf_ = philox4x32_10({static_cast<uint32_t>(block_), static_cast<uint32_t>(block_ >> 32),
                        static_cast<uint32_t>(stream_), static_cast<uint32_t>(stream_ >> 32)},
                       {static_cast<uint32_t>(seed_), static_cast<uint32_t>(seed_ >> 32)});
  ++block_;
  used_ = 0;
}

uint32_t Rng::next_u32() {
  if (used_ >= 4) refill();
  return buf_[used_++];
}

uint64_t Rng::operator()() {
  const uint64_t lo = next_u32();
  return lo | static_cast<uint64_t>(next_u32()) << 32;
}

double Rng::uniform() {
  return static_cast<double>((*this)() >> 11) * 0x1.0p-53;
}

double Rng::normal() {
  // 1 - u lies in (0, 1], so the logarithm is finite.
  const double u1 = 1.0 - uniform();
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

uint64_t Rng::below(uint64_t n) {
  if (n == 0) return 0;
  // Lemire (2019): the high word of x*n is uniform once the low word clears the bias threshold.
  unsigned __int128 m = static_cast<unsigned __int128>((*this)()) * n;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < n) {
    const uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<unsigned __int128>((*this)()) * n;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

void Rng::discard(uint64_t n) {
  // Consume what is left of the buffer, jump whole blocks, then the remainder.
  while (n > 0 && used_ < 4) {
    ++used_;
    --n;
  }
  block_ += n / 4;
  n %= 4;
  if (n > 0) {
    refill();
    used_ = static_cast<unsigned>(n);
  }
}

std::string Rng::state() const {
  return fmt::format("philox4x32-10:{:016x}:{:016x}:{:016x}:{}", seed_, stream_, block_, used_);
}

Result<Rng, TrainError> Rng::from_state(std::string_view s) {
  auto bad = [&] {
    return invalid_argument_error(fmt::format("not a random generator state: '{}'", s));
  };
  constexpr std::string_view tag = "philox4x32-10:";
  if (s.substr(0, tag.size()) != tag) return bad();
  s.remove_prefix(tag.size());
  uint64_t v[3];
  for (uint64_t& x : v) {
    const size_t colon = s.find(':');
    if (colon != 16) return bad();
    // NOLINTNEXTLINE(bugprone-suspicious-stringview-data-usage): from_chars takes the end too
    if (std::from_chars(s.data(), s.data() + 16, x, 16).ptr != s.data() + 16) return bad();
    s.remove_prefix(17);
  }
  unsigned used = 0;
  if (s.empty() ||
      std::from_chars(s.data(), s.data() + s.size(), used).ptr != s.data() + s.size() || used > 4)
    return bad();
  Rng r(v[0], v[1]);
  // The buffer is a pure function of (seed, stream, block): regenerate it.
  if (used < 4) {
    if (v[2] == 0) return bad();
    r.block_ = v[2] - 1;
    r.refill();
  } else {
    r.block_ = v[2];
  }
  r.used_ = used;
  return r;
}

std::vector<int64_t> permutation(int64_t n, Rng& rng) {
  std::vector<int64_t> p(static_cast<size_t>(std::max<int64_t>(n, 0)));
  std::iota(p.begin(), p.end(), int64_t{0});
  shuffle(std::span<int64_t>(p), rng);
  return p;
}

} // namespace plastic::rt
