// Signatures and log-signatures of piecewise-linear paths, truncated at depth N.
//
// The signature of a straight segment with increment Δ is exp(Δ) in the
// tensor algebra; Chen's identity makes the signature of a polygonal path the
// product of its segments' signatures. The log-signature is the tensor
// logarithm of that, presented in one of signatory's three modes
// (src/signatory/logsignature_module.py, `logsignature`, whose default since
// signatory 1.2 is "words"):
//
// * words    — "the coefficients of all Lyndon words from the tensor algebra
//              representation of the logsignature": read off the Lyndon-word
//              entries of the expanded log. NOT the Lyndon bracket basis.
// * brackets — coefficients in the Lyndon (bracket) basis of the free Lie
//              algebra, i.e. log = Σ_w c_w P_w; obtained from the words
//              coefficients by the unitriangular change of basis of lyndon.h
//              (signatory's `LyndonWords::to_lyndon_basis` does the same).
// * expand   — the whole expanded log, levels 1..N (the signature's shape).
//
// In words and brackets modes coordinates are ordered by word length, then
// lexicographically (LyndonBasis). The result is the same number signatory
// returns for a path given as the sequence of its points (no basepoint).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

#include "runtime/logsig/lyndon.h"
#include "runtime/logsig/tensor_algebra.h"
#include "runtime/paths/path_error.h"

namespace plastic::rt {

/// How log-signature coordinates are presented (signatory's `mode`).
enum class LogSigMode { words, brackets, expand };

/// "words" | "brackets" | "expand"; nullopt otherwise.
std::optional<LogSigMode> parse_logsig_mode(std::string_view name);

/// Computes signatures and log-signatures of polygonal paths in R^d at a
/// fixed depth and mode. Holds its workspace, so computing allocates
/// nothing; one instance per thread.
class LogSignature {
public:
  /// d >= 1 channels, depth N >= 1. Building the basis costs O(β(d, N)·2^N)
  /// in brackets mode, so reuse one instance across series. Requires
  /// check_tensor_shape(channels, depth).ok() (else InternalError); make()
  /// checks instead.
  LogSignature(int channels, int depth, LogSigMode mode = LogSigMode::words);

  /// The engine for d channels at depth N, or why there is none (d < 1, N
  /// outside [1, 12], or an algebra too large).
  static Result<LogSignature, PathError> make(int channels, int depth,
                                              LogSigMode mode = LogSigMode::words);

  int channels() const { return shape_.channels(); }
  int depth() const { return shape_.depth(); }
  LogSigMode mode() const { return mode_; }
  /// Output size: β(d, N) for words/brackets, Σ d^k for expand.
  std::size_t size() const;
  const LyndonBasis& basis() const { return basis_; }
  const TensorShape& shape() const { return shape_; }

  /// Signature (levels 1..N, shape().size() values) of the polygonal path
  /// through `points` = [npoints][d] row-major, npoints >= 1 (one point: the
  /// constant path, signature 0 beyond the scalar 1). Any other number of
  /// values is an InternalError.
  void signature(std::span<const double> points, double* out);

  /// Log-signature of the same path in this instance's mode; size() values.
  void compute(std::span<const double> points, double* out);

  /// Converts an expanded log-signature (levels 1..N) to this mode's
  /// coordinates; size() values.
  void project(const double* log_tensor, double* out) const;

private:
  TensorShape shape_;
  LyndonBasis basis_;
  LogSigMode mode_;
  // words → brackets: (w, u, A) with w < u, sorted by w, A = coefficient of
  // Lyndon word u in the expansion of P_w.
  std::vector<std::tuple<std::size_t, std::size_t, double>> to_brackets_;
  std::vector<double> sig_, log_, scratch_, delta_;
};

} // namespace plastic::rt
