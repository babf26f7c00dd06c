// Lyndon word generation (Duval's algorithm), standard factorisation, and
// bracket expansion; see lyndon.h for the order and its source.
#include "runtime/logsig/lyndon.h"

#include "runtime/support/witt.h"

#include <algorithm>
#include <map>

#include "runtime/support/internal_error.h"

namespace plastic::rt {

int mobius(int n) {
  PLASTIC_CHECK(n >= 1, "mobius({}) is undefined", n);
  return support::mobius(n);
}

namespace {

std::int64_t ipow(std::int64_t base, int exp) {
  std::int64_t r = 1;
  for (int i = 0; i < exp; ++i)
    r *= base;
  return r;
}

// Callers check channels and depth first (input plans, check_tensor_shape).
void check_args(int channels, int depth) {
  PLASTIC_CHECK(channels >= 1, "log-signature needs >= 1 channel, got {}", channels);
  PLASTIC_CHECK(depth >= 1, "log-signature depth must be >= 1, got {}", depth);
}

// True if `w` is a Lyndon word: strictly smaller than each proper suffix.
bool is_lyndon(std::span<const int> w) {
  for (std::size_t s = 1; s < w.size(); ++s)
    if (!std::lexicographical_compare(w.begin(), w.end(),
                                      w.begin() + static_cast<std::ptrdiff_t>(s), w.end()))
      return false;
  return !w.empty();
}

} // namespace

std::int64_t logsig_dim(int channels, int depth) {
  check_args(channels, depth);
  return support::logsig_dim(channels, depth);
}

std::int64_t tensor_dim(int channels, int depth) {
  check_args(channels, depth);
  std::int64_t total = 0;
  for (int k = 1; k <= depth; ++k)
    total += ipow(channels, k);
  return total;
}

LyndonBasis::LyndonBasis(int channels, int depth) : channels_(channels), depth_(depth) {
  check_args(channels, depth);
  // Duval's algorithm yields every Lyndon word of length <= depth once, in
  // lexicographic order; a stable sort by length then gives signatory's order.
  std::vector<std::vector<int>> words;
  std::vector<int> w{-1};
  while (!w.empty()) {
    ++w.back();
    words.push_back(w);
    const std::size_t period = w.size();
    while (w.size() < static_cast<std::size_t>(depth))
      w.push_back(w[w.size() - period]);
    while (!w.empty() && w.back() == channels - 1)
      w.pop_back();
  }
  std::stable_sort(
      words.begin(), words.end(),
      [](const std::vector<int>& a, const std::vector<int>& b) { return a.size() < b.size(); });

  starts_.push_back(0);
  level_begin_.assign(static_cast<std::size_t>(depth) + 2, words.size());
  for (std::size_t i = 0; i < words.size(); ++i) {
    const auto& word = words[i];
    const std::size_t len = word.size();
    level_begin_[len] = std::min(level_begin_[len], i);
    std::size_t index = 0;
    for (int letter : word)
      index = index * static_cast<std::size_t>(channels) + static_cast<std::size_t>(letter);
    level_index_.push_back(index);
    letters_.insert(letters_.end(), word.begin(), word.end());
    starts_.push_back(letters_.size());
    // Standard factorisation: v is the longest proper Lyndon suffix.
    int split = 0;
    for (std::size_t s = 1; s < len; ++s) {
      if (is_lyndon(std::span<const int>(word).subspan(s))) {
        split = static_cast<int>(s);
        break;
      }
    }
    split_.push_back(split);
  }
  level_begin_[0] = 0;
  for (std::size_t k = level_begin_.size() - 1;
       k-- > 1;) // empty levels (d = 1) start where the next does
    level_begin_[k] = std::min(level_begin_[k], level_begin_[k + 1]);
  PLASTIC_CHECK(static_cast<std::int64_t>(size()) == logsig_dim(channels, depth),
                "{} Lyndon words for d={}, N={}, expected {}", size(), channels, depth,
                logsig_dim(channels, depth));
}

std::size_t LyndonBasis::find(std::span<const int> letters) const {
  const int len = static_cast<int>(letters.size());
  if (len < 1 || len > depth_) return size();
  std::size_t index = 0;
  for (int letter : letters) {
    if (letter < 0 || letter >= channels_) return size();
    index = index * static_cast<std::size_t>(channels_) + static_cast<std::size_t>(letter);
  }
  return find_index(len, index);
}

std::size_t LyndonBasis::find_index(int length, std::size_t index) const {
  if (length < 1 || length > depth_) return size();
  // Within a length, lexicographic order is the order of row-major indices.
  const auto begin = level_index_.begin() + static_cast<std::ptrdiff_t>(level_begin(length));
  const auto end = level_index_.begin() + static_cast<std::ptrdiff_t>(level_begin(length + 1));
  const auto it = std::lower_bound(begin, end, index);
  return it != end && *it == index ? static_cast<std::size_t>(it - level_index_.begin()) : size();
}

std::string LyndonBasis::to_string(std::size_t i) const {
  std::string s;
  for (int letter : word(i)) {
    if (!s.empty() && channels_ > 10) s += ',';
    s += std::to_string(letter);
  }
  return s;
}

std::string LyndonBasis::bracket_string(std::size_t i) const {
  const auto w = word(i);
  if (w.size() == 1) return std::to_string(w[0]);
  const std::size_t u = find(w.first(static_cast<std::size_t>(split(i))));
  const std::size_t v = find(w.subspan(static_cast<std::size_t>(split(i))));
  std::string s(1, '['); // appended piecewise: GCC 12 misreports "[" + string&& (-Wrestrict)
  s += bracket_string(u);
  s += ',';
  s += bracket_string(v);
  s += ']';
  return s;
}

std::vector<std::pair<std::size_t, double>> expand_bracket(const LyndonBasis& basis,
                                                           std::size_t i) {
  const auto w = basis.word(i);
  if (w.size() == 1) return {{static_cast<std::size_t>(w[0]), 1.0}};
  const std::size_t split = static_cast<std::size_t>(basis.split(i));
  const auto eu = expand_bracket(basis, basis.find(w.first(split)));
  const auto ev = expand_bracket(basis, basis.find(w.subspan(split)));
  std::size_t du = 1, dv = 1; // d^|u|, d^|v|: shifts for concatenating indices
  for (std::size_t k = 0; k < split; ++k)
    du *= static_cast<std::size_t>(basis.channels());
  for (std::size_t k = split; k < w.size(); ++k)
    dv *= static_cast<std::size_t>(basis.channels());
  std::map<std::size_t, double> terms; // [P_u, P_v] = P_u P_v - P_v P_u
  for (const auto& [iu, cu] : eu) {
    for (const auto& [iv, cv] : ev) {
      terms[iu * dv + iv] += cu * cv;
      terms[iv * du + iu] -= cu * cv;
    }
  }
  std::vector<std::pair<std::size_t, double>> out;
  for (const auto& [index, coeff] : terms)
    if (coeff != 0.0) out.emplace_back(index, coeff);
  return out;
}

} // namespace plastic::rt
