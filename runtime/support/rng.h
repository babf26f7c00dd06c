// Deterministic random numbers: Philox4x32-10, a counter-based generator.
//
// Philox (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
// SC'11; the generator of cuRAND and PyTorch's CUDA backend) turns a 128-bit
// counter and a 64-bit key into 128 random bits by 10 rounds of a bijection.
// Here the key is the seed and the counter is (block index, stream id), so:
//  * the whole state is four integers and serialises to a short string that
//    restores the stream bit-exactly (checkpoints);
//  * Rng(seed, stream) for stream = thread index gives independent streams
//    with no shared state, so results depend only on the seed and the
//    thread count, not on scheduling;
//  * skipping ahead is free (set the block index).
// The distributions below are written out here rather than taken from
// <random>, whose algorithms differ between standard libraries, so a seed
// means the same numbers everywhere.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/support/train_error.h"

namespace plastic::rt {

/// One Philox4x32-10 block: 4 random words from a counter and a key.
std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key);

class Rng {
public:
  /// A UniformRandomBitGenerator, so <random> adaptors also accept it.
  using result_type = uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~uint64_t{0}; }

  /// Stream `stream` of generator `seed`. Stream 0 is the main stream.
  explicit Rng(uint64_t seed = 0, uint64_t stream = 0);

  /// Stream for worker thread `thread` (streams 1, 2, ...; 0 stays the main stream).
  static Rng for_thread(uint64_t seed, uint64_t thread) { return Rng(seed, thread + 1); }
  /// Stream of training epoch `epoch` (the top half of the stream ids, apart
  /// from the thread streams). Threads inside an epoch can derive their own
  /// generators with for_thread(epoch_rng(), thread).
  static Rng for_epoch(uint64_t seed, int64_t epoch) {
    return Rng(seed, (uint64_t{1} << 63) | static_cast<uint64_t>(epoch));
  }

  /// 64 random bits.
  uint64_t operator()();
  /// 32 random bits.
  uint32_t next_u32();
  /// Uniform in [0, 1) with 53 random bits.
  double uniform();
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Standard normal (Box–Muller; one draw uses two uniforms, nothing cached).
  double normal();
  /// Uniform integer in [0, n), unbiased (Lemire's multiply-and-reject); n > 0.
  uint64_t below(uint64_t n);
  /// Skips `n` 32-bit outputs.
  void discard(uint64_t n);

  uint64_t seed() const { return seed_; }
  uint64_t stream() const { return stream_; }

  /// "philox4x32-10:<seed>:<stream>:<block>:<used>" (hex, decimal used).
  std::string state() const;
  /// Restores state(); fails on anything else.
  static Result<Rng, TrainError> from_state(std::string_view state);

  friend bool operator==(const Rng& a, const Rng& b) {
    return a.seed_ == b.seed_ && a.stream_ == b.stream_ && a.block_ == b.block_ &&
           a.used_ == b.used_;
  }

private:
  void refill();

  uint64_t seed_ = 0;
  uint64_t stream_ = 0;
  uint64_t block_ = 0; ///< index of the next block to generate
  unsigned used_ = 4;  ///< words of buf_ consumed; 4 = empty
  std::array<uint32_t, 4> buf_{};
};

/// Fisher–Yates shuffle driven by rng.below (the same order on every platform).
template <class T> void shuffle(std::span<T> items, Rng& rng) {
  for (size_t i = items.size(); i > 1; --i) {
    const size_t j = static_cast<size_t>(rng.below(i));
    std::swap(items[i - 1], items[j]);
  }
}

/// A random permutation of 0 .. n-1.
std::vector<int64_t> permutation(int64_t n, Rng& rng);

} // namespace plastic::rt
