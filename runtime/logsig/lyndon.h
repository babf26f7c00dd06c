// Lyndon words: the index set of log-signature coordinates.
//
// The depth-N log-signature of a path in R^d lives in the free Lie algebra,
// of dimension β(d, N) (paper 002, App. A):
//     β(d, N) = Σ_{k=1..N} (1/k) Σ_{i | k} μ(k/i) d^i,   μ the Möbius function,
// which is also the number of Lyndon words of length <= N over d letters.
//
// Order and convention follow signatory (Kidger & Lyons), which the neural
// RDE code of Morrill et al. calls: letters are channel indices 0..d-1, and
// "the ordering corresponds to the ordering on words given by first ordering
// the words by length, and then ordering each length class lexicographically"
// (signatory, src/signatory/logsignature_module.py, docstring of
// `logsignature`; its C++ generator, src/free_lie_algebra_ops.cpp, runs
// Duval's algorithm and files each word under its length). A word's position
// in the tensor algebra is row-major, first letter most significant, also as
// signatory (`LyndonWord::init`, `tensor_algebra_index`).
//
// Each Lyndon word w of length >= 2 has a standard factorisation w = uv, v
// the longest proper suffix of w that is a Lyndon word; the Lyndon bracket
// P_w = [P_u, P_v] gives the Lyndon basis ("brackets" mode). Expanded in
// words, P_w = w + (words lexicographically greater than w), which makes the
// change of basis between "words" and "brackets" coordinates unitriangular.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace plastic::rt {

/// Möbius function μ(n) for n >= 1 (n < 1 is an InternalError).
int mobius(int n);

/// β(d, N): the log-signature dimension (paper 002, App. A); requires
/// d, N >= 1 (callers check; else InternalError). Witt's formula from
/// runtime/support/witt.h, shared with the front end.
std::int64_t logsig_dim(int channels, int depth);

/// Σ_{k=1..N} d^k: the size of a truncated tensor series without its scalar
/// term (signatory's "expand" mode and signature size).
std::int64_t tensor_dim(int channels, int depth);

/// The Lyndon words of length <= depth over the alphabet {0, ..., channels-1},
/// grouped by length, lexicographic within a length (signatory's order).
class LyndonBasis {
public:
  LyndonBasis(int channels, int depth);

  int channels() const { return channels_; }
  int depth() const { return depth_; }
  /// Number of words, = logsig_dim(channels, depth).
  std::size_t size() const { return starts_.size() - 1; }

  /// Letters of word i.
  std::span<const int> word(std::size_t i) const {
    return {letters_.data() + starts_[i], starts_[i + 1] - starts_[i]};
  }
  /// Length of word i.
  int length(std::size_t i) const { return static_cast<int>(starts_[i + 1] - starts_[i]); }
  /// Words of length k are [level_begin(k), level_begin(k+1)), 1 <= k <= depth+1.
  std::size_t level_begin(int k) const { return level_begin_[static_cast<std::size_t>(k)]; }
  /// Row-major index of word i within its tensor level (first letter most significant).
  std::size_t level_index(std::size_t i) const { return level_index_[i]; }
  /// Length of u in the standard factorisation w = uv of word i (0 for a letter).
  int split(std::size_t i) const { return split_[i]; }
  /// Position of the Lyndon word with the given letters, or size() if it is not one.
  std::size_t find(std::span<const int> letters) const;
  /// Position of the Lyndon word of length `length` whose row-major index
  /// within its level is `index`, or size() if that word is not Lyndon.
  std::size_t find_index(int length, std::size_t index) const;

  /// "012" style spelling of word i (letters as decimal numbers, separated by
  /// ',' when channels > 10).
  std::string to_string(std::size_t i) const;
  /// The Lyndon bracket of word i, e.g. "[0,[1,2]]".
  std::string bracket_string(std::size_t i) const;

private:
  int channels_;
  int depth_;
  std::vector<int> letters_;             // all words, concatenated
  std::vector<std::size_t> starts_;      // word i = letters_[starts_[i], starts_[i+1])
  std::vector<std::size_t> level_begin_; // by length
  std::vector<std::size_t> level_index_;
  std::vector<int> split_;
};

/// The bracket P_w of word i expanded as a linear combination of words of
/// length |w|: (row-major index within that level, coefficient), sorted by
/// index, zero coefficients dropped.
std::vector<std::pair<std::size_t, double>> expand_bracket(const LyndonBasis& basis, std::size_t i);

} // namespace plastic::rt
