// A small UEA `.ts` classification set for end-to-end tests: `channels`
// noisy sinusoids whose frequency depends on the class, so every model has
// something to learn. Deterministic for a given seed (a 64-bit LCG), and
// written with six decimals, so two tests that ask for the same set read
// the same bytes.
#pragma once

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

namespace plastic::test {

/// Writes `samples` series of `length` steps; sample i has class i % classes.
/// Values are `offset + sin(0.3 t (1 + class) + channel) + 0.3 noise`.
inline void write_toy_ts(const std::filesystem::path& path, int channels, int classes, int samples,
                         int length, double offset = 0, uint64_t seed = 12345) {
  std::ofstream f(path);
  f << "@problemName Toy\n@timeStamps false\n@missing false\n@univariate false\n@dimensions "
    << channels << "\n@equalLength true\n@seriesLength " << length << "\n@classLabel true";
  for (int c = 0; c < classes; ++c)
    f << " c" << c;
  f << "\n@data\n";
  uint64_t state = seed;
  auto noise = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) / 9007199254740992.0 - 0.5;
  };
  for (int i = 0; i < samples; ++i) {
    const int label = i % classes;
    for (int ch = 0; ch < channels; ++ch) {
      for (int t = 0; t < length; ++t)
        f << fmt::format("{}{:.6f}", t ? "," : "",
                         offset + std::sin(0.3 * t * (1 + label) + ch) + 0.3 * noise());
      f << ":";
    }
    f << "c" << label << "\n";
  }
}

} // namespace plastic::test
