// Truncated tensor algebra arithmetic; see tensor_algebra.h.
#include "runtime/logsig/tensor_algebra.h"

#include <algorithm>

#include <fmt/format.h>

#include "runtime/support/internal_error.h"

namespace plastic::rt {

Status<PathError> check_tensor_shape(int channels, int depth) {
  if (channels < 1)
    return path_error(fmt::format("tensor algebra needs >= 1 channel, got {}", channels));
  if (depth < 1 || depth > 12)
    return path_error(fmt::format("tensor algebra depth must be in [1, 12], got {}", depth));
  std::size_t total = 0, level = 1;
  for (int k = 1; k <= depth; ++k) {
    level *= static_cast<std::size_t>(channels);
    total += level;
    if (total > (std::size_t{1} << 31))
      return path_error(fmt::format(
          "the depth-{} tensor algebra over {} channels is too large ({}+ coefficients)", depth,
          channels, total));
  }
  return {};
}

TensorShape::TensorShape(int channels, int depth) : channels_(channels), depth_(depth) {
  if (Status<PathError> s = check_tensor_shape(channels, depth); !s)
    internal_error(__FILE__, __LINE__, s.error().message);
  std::size_t total = 0, level = 1;
  offset_.push_back(0);
  for (int k = 1; k <= depth; ++k) {
    level *= static_cast<std::size_t>(channels);
    total += level;
    offset_.push_back(total);
  }
}

void mul_exp_segment(const TensorShape& shape, double* sig, const double* delta, double* scratch) {
  const std::size_t d = static_cast<std::size_t>(shape.channels());
  // Level k of sig ⊗ exp(Δ) is Σ_{j=0..k} S_{k-j} ⊗ Δ^{⊗j} / j!. Horner form:
  //   u_1 = Δ / k,  u_m = (S_{m-1} + u_{m-1}) ⊗ Δ / (k-m+1),  S_k += u_k,
  // so S_{k-j} picks up the factors 1/j, 1/(j-1), ..., 1/1 = 1/j!. Levels are
  // updated from N down to 1 so each reads only not-yet-updated lower levels.
  for (int k = shape.depth(); k >= 1; --k) {
    double* out = sig + shape.offset(k);
    if (k == 1) {
      for (std::size_t j = 0; j < d; ++j)
        out[j] += delta[j];
      break;
    }
    for (std::size_t j = 0; j < d; ++j)
      scratch[j] = delta[j] / k;
    std::size_t len = d; // u_m has d^m entries
    for (int m = 2; m < k; ++m) {
      const double* lower = sig + shape.offset(m - 1);
      const double inv = 1.0 / (k - m + 1);
      // In place: entry i spreads to [i·d, i·d + d) >= i; going down, every
      // overwritten entry other than i itself has been read already.
      for (std::size_t i = len; i-- > 0;) {
        const double v = (lower[i] + scratch[i]) * inv;
        for (std::size_t j = 0; j < d; ++j)
          scratch[i * d + j] = v * delta[j];
      }
      len *= d;
    }
    const double* lower = sig + shape.offset(k - 1);
    for (std::size_t i = 0; i < len; ++i) {
      const double v = lower[i] + scratch[i];
      double* row = out + i * d;
      for (std::size_t j = 0; j < d; ++j)
        row[j] += v * delta[j];
    }
  }
}

void tensor_mul(const TensorShape& shape, double a0, const double* a, double b0, const double* b,
                double* out) {
  for (int k = 1; k <= shape.depth(); ++k) {
    double* o = out + shape.offset(k);
    const std::size_t n = shape.level_size(k);
    const double* ak = a + shape.offset(k);
    const double* bk = b + shape.offset(k);
    for (std::size_t i = 0; i < n; ++i)
      o[i] = a0 * bk[i] + b0 * ak[i];
    for (int i = 1; i < k; ++i) { // a_i ⊗ b_{k-i}
      const double* ai = a + shape.offset(i);
      const double* bj = b + shape.offset(k - i);
      const std::size_t ni = shape.level_size(i), nj = shape.level_size(k - i);
      for (std::size_t p = 0; p < ni; ++p) {
        const double v = ai[p];
        if (v == 0.0) continue;
        double* row = o + p * nj;
        for (std::size_t q = 0; q < nj; ++q)
          row[q] += v * bj[q];
      }
    }
  }
}

namespace {

// Levels 1..top of x ⊗ (r0 + r), reading only levels < top of r: the
// truncated products of the Horner scheme below.
void mul_left_truncated(const TensorShape& shape, const double* x, double r0, const double* r,
                        double* out, int top) {
  for (int k = 1; k <= top; ++k) {
    double* o = out + shape.offset(k);
    const double* xk = x + shape.offset(k);
    const std::size_t n = shape.level_size(k);
    for (std::size_t i = 0; i < n; ++i)
      o[i] = r0 * xk[i];
    for (int i = 1; i < k; ++i) { // x_i ⊗ r_{k-i}
      const double* xi = x + shape.offset(i);
      const double* rj = r + shape.offset(k - i);
      const std::size_t ni = shape.level_size(i), nj = shape.level_size(k - i);
      for (std::size_t p = 0; p < ni; ++p) {
        const double v = xi[p];
        double* row = o + p * nj;
        for (std::size_t q = 0; q < nj; ++q)
          row[q] += v * rj[q];
      }
    }
  }
}

} // namespace

void tensor_log(const TensorShape& shape, const double* x, double* out, double* scratch) {
  // Horner: log(1+x) = x ⊗ (1 - x ⊗ (1/2 - x ⊗ (1/3 - ... x ⊗ 1/N))).
  // r_N = 1/N, r_m = 1/m - x ⊗ r_{m+1}, log = x ⊗ r_1. r_m is multiplied by
  // x m more times, so only its levels <= N-m matter: about N·d^N
  // multiply-adds in all, against (N-1)²·d^N for summing powers.
  const int N = shape.depth();
  double* r = scratch; // r_{m+1}: levels 1..N-m-1
  double* next = scratch + shape.size();
  double r0 = 1.0 / N;
  for (int m = N - 1; m >= 1; --m) {
    const int top = N - m;
    mul_left_truncated(shape, x, r0, r, next, top);
    const std::size_t end = shape.offset(top) + shape.level_size(top);
    for (std::size_t i = 0; i < end; ++i)
      next[i] = -next[i];
    r0 = 1.0 / m;
    std::swap(r, next);
  }
  mul_left_truncated(shape, x, r0, r, out, N);
}

void tensor_exp(const TensorShape& shape, const double* y, double* out, double* scratch) {
  const std::size_t n = shape.size();
  double* power = scratch; // y^m / m!
  double* next = scratch + n;
  std::copy(y, y + n, out);
  std::copy(y, y + n, power);
  for (int m = 2; m <= shape.depth(); ++m) {
    tensor_mul(shape, 0.0, power, 0.0, y, next);
    std::swap(power, next);
    for (std::size_t i = 0; i < n; ++i) {
      power[i] /= m;
      out[i] += power[i];
    }
  }
}

} // namespace plastic::rt
