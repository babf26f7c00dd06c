// Stability polynomial of an explicit RK method (see stability_polynomial.h).
#include "runtime/init/stability_polynomial.h"

namespace plastic::rt::init_detail {

std::vector<double> stability_polynomial(const ButcherTableau& t) {
  const int s = t.stages;
  std::vector<double> c(static_cast<size_t>(s) + 1, 0.0);
  c[0] = 1.0;
  // v = A^{k-1} 1, starting from the ones vector; c_k = b . v.
  std::vector<double> v(static_cast<size_t>(s), 1.0), next(static_cast<size_t>(s));
  for (int k = 1; k <= s; ++k) {
    double ck = 0.0;
    for (int j = 0; j < s; ++j)
      ck += t.b[static_cast<size_t>(j)] * v[static_cast<size_t>(j)];
    c[static_cast<size_t>(k)] = ck;
    for (int i = 0; i < s; ++i) {
      double acc = 0.0;
      for (int j = 0; j < i; ++j) // strictly lower triangular
        acc += t.A(i, j) * v[static_cast<size_t>(j)];
      next[static_cast<size_t>(i)] = acc;
    }
    v.swap(next);
  }
  // Trim coefficients that are zero up to round-off of the tableau's digits.
  while (c.size() > 1 && std::abs(c.back()) < 1e-15)
    c.pop_back();
  return c;
}

double amplification(const std::vector<double>& c, std::complex<double> z) {
  std::complex<double> r = 0.0;
  for (auto it = c.rbegin(); it != c.rend(); ++it)
    r = r * z + *it;
  return std::abs(r);
}

} // namespace plastic::rt::init_detail
