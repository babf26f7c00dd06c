// Signatures and log-signatures: known values (increment, Lévy area, hand
// BCH computations), Chen's identity in both its signature form and its
// log-signature (Baker–Campbell–Hausdorff) form, invariance under
// reparametrisation, and consistency between the words / brackets / expand
// coordinate modes.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "runtime/logsig/logsignature.h"
#include "runtime/support/internal_error.h"

using namespace plastic::rt;

namespace {

std::vector<double> random_path(int npoints, int d, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal(0.0, 0.7);
  std::vector<double> p(static_cast<std::size_t>(npoints * d));
  for (double& v : p)
    v = normal(rng);
  return p;
}

std::vector<double> logsig(const std::vector<double>& points, int d, int depth,
                           LogSigMode mode = LogSigMode::words) {
  LogSignature ls(d, depth, mode);
  std::vector<double> out(ls.size());
  ls.compute(points, out.data());
  return out;
}

// [x, y] = xy - yx for Lie elements (zero scalar) of the truncated algebra.
std::vector<double> bracket(const TensorShape& s, const std::vector<double>& x,
                            const std::vector<double>& y) {
  std::vector<double> xy(s.size()), yx(s.size());
  tensor_mul(s, 0.0, x.data(), 0.0, y.data(), xy.data());
  tensor_mul(s, 0.0, y.data(), 0.0, x.data(), yx.data());
  for (std::size_t i = 0; i < s.size(); ++i)
    xy[i] -= yx[i];
  return xy;
}

void check_close(const std::vector<double>& a, const std::vector<double>& b, double tol) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("coordinate " << i);
    CHECK(a[i] == Approx(b[i]).margin(tol));
  }
}

} // namespace

TEST_CASE("depth 1 is the increment", "[logsig]") {
  const int d = 4, n = 9;
  const auto p = random_path(n, d, 1);
  for (int depth : {1, 3}) {
    const auto ls = logsig(p, d, depth);
    for (int j = 0; j < d; ++j)
      CHECK(ls[j] == Approx(p[(n - 1) * d + j] - p[j]).margin(1e-13));
  }
}

TEST_CASE("one segment: signature is the tensor exponential, log-signature the increment",
          "[logsig]") {
  const int d = 3, N = 4;
  const std::vector<double> p{0.1, -0.2, 0.3, 0.6, 0.4, -0.5};
  const double delta[3] = {0.5, 0.6, -0.8};
  LogSignature ls(d, N, LogSigMode::expand);
  std::vector<double> sig(ls.shape().size()), log(ls.size());
  ls.signature(p, sig.data());
  const TensorShape& s = ls.shape();
  double factorial = 1.0;
  for (int k = 1; k <= N; ++k) {
    factorial *= k;
    for (std::size_t i = 0; i < s.level_size(k); ++i) {
      double expect = 1.0 / factorial; // Δ^{⊗k}/k! at word i (row-major letters)
      std::size_t rest = i;
      for (int l = 0; l < k; ++l, rest /= d)
        expect *= delta[rest % d];
      CHECK(sig[s.offset(k) + i] == Approx(expect).margin(1e-14));
    }
  }
  ls.compute(p, log.data());
  for (std::size_t i = 0; i < log.size(); ++i)
    CHECK(log[i] == Approx(i < 3 ? delta[i] : 0.0).margin(1e-14));
}

TEST_CASE("Chen: the signature of a concatenation is the product", "[logsig][chen]") {
  const int d = 3, N = 4;
  const auto p = random_path(7, d, 2);
  LogSignature ls(d, N);
  const TensorShape& s = ls.shape();
  std::vector<double> whole(s.size()), first(s.size()), second(s.size()), product(s.size());
  ls.signature(p, whole.data());
  ls.signature(std::span<const double>(p).first(4 * d), first.data());    // points 0..3
  ls.signature(std::span<const double>(p).subspan(3 * d), second.data()); // points 3..6
  tensor_mul(s, 1.0, first.data(), 1.0, second.data(), product.data());
  check_close(whole, product, 1e-13);
}

TEST_CASE("hand example: two segments in 2D, depths 2 and 3", "[logsig][hand]") {
  // Increments a = (1, 2), b = (3, -1). BCH:
  //   log(e^a e^b) = a + b + ½[a,b] + (1/12)([a,[a,b]] + [b,[b,a]]) + ...
  // [a,b] = (a0 b1 - a1 b0)[e0,e1] = -7 [e0,e1]                → word 01: -3.5
  // [a,[a,b]] = -7 (a0 [e0,[e0,e1]] + a1 [e1,[e0,e1]]) = -7 P001 + 14 P011
  // [b,[b,a]] =  7 (b0 [e0,[e0,e1]] + b1 [e1,[e0,e1]]) = 21 P001 + 7 P011
  // with [e1,[e0,e1]] = -[[e0,e1],e1] = -P011. So (1/12)(14 P001 + 21 P011).
  // P001 = 001 - 2·010 + 100 and P011 = 011 - 2·101 + 110 contain no other
  // Lyndon word, so words and brackets coordinates agree:
  //   depth 3: (4, 1, -3.5, 7/6, 7/4).
  const std::vector<double> p{0, 0, 1, 2, 4, 1};
  check_close(logsig(p, 2, 2), {4, 1, -3.5}, 1e-14);
  check_close(logsig(p, 2, 3), {4, 1, -3.5, 7.0 / 6.0, 7.0 / 4.0}, 1e-14);
  check_close(logsig(p, 2, 3, LogSigMode::brackets), {4, 1, -3.5, 7.0 / 6.0, 7.0 / 4.0}, 1e-14);
}

TEST_CASE("hand example: e0 then e1 then e2, words vs brackets differ", "[logsig][hand]") {
  // Path 0 → e0 → e0+e1 → e0+e1+e2 in R^3, depth 3. Level 3 of the log,
  // L3 = S3 - ½(S1 S2 + S2 S1) + ⅓ S1³, where S^{012} = 1 and every other
  // permutation of 012 has signature 0, S^{ij} = 1 for i < j:
  //   word 012: 1 - ½(1 + 1) + ⅓ = 1/3,   word 021: 0 - ½(0 + 1) + ⅓ = -1/6.
  // Words with a repeated letter come from a single BCH term (1/12), e.g.
  // 001 from (1/12)[e0,[e0,e1]]. Level 2: ½ for 01, 02, 12.
  // Brackets: the 012-anagram part of the log is
  //   ¼[[e0,e1],e2] + (1/12)([e0,[e1,e2]] + [e1,[e0,e2]])
  //   = ¼(P012 + P021) + (1/12)(P012 - P021) = ⅓ P012 + ⅙ P021,
  // consistent with words since P012 = 012 - 021 - ... : ℓ021 = -⅓ + ⅙.
  const std::vector<double> p{0, 0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 1};
  const double t = 1.0 / 12.0;
  // order: 0 1 2 01 02 12 001 002 011 012 021 022 112 122
  check_close(logsig(p, 3, 3), {1, 1, 1, .5, .5, .5, t, t, t, 1.0 / 3, -1.0 / 6, t, t, t}, 1e-14);
  check_close(logsig(p, 3, 3, LogSigMode::brackets),
              {1, 1, 1, .5, .5, .5, t, t, t, 1.0 / 3, 1.0 / 6, t, t, t}, 1e-14);
}

TEST_CASE("Levy area of a polygon approximating the unit circle tends to pi", "[logsig][levy]") {
  // For a closed polygon the depth-2 antisymmetric coefficient (word 01) is
  // exactly its signed area, here (M/2) sin(2π/M) → π.
  double previous_error = 10.0;
  for (int M : {4, 16, 64, 256, 1024}) {
    std::vector<double> p;
    for (int i = 0; i <= M; ++i) {
      p.push_back(std::cos(2 * M_PI * i / M));
      p.push_back(std::sin(2 * M_PI * i / M));
    }
    const auto ls = logsig(p, 2, 2);
    CHECK(ls[0] == Approx(0.0).margin(1e-12));
    CHECK(ls[1] == Approx(0.0).margin(1e-12));
    CHECK(ls[2] == Approx(0.5 * M * std::sin(2 * M_PI / M)).margin(1e-12));
    const double error = std::abs(ls[2] - M_PI);
    CHECK(error < previous_error);
    previous_error = error;
    // Clockwise traversal flips the sign.
    std::vector<double> q(p);
    for (std::size_t i = 1; i < q.size(); i += 2)
      q[i] = -q[i];
    CHECK(logsig(q, 2, 2)[2] == Approx(-ls[2]).margin(1e-12));
  }
  CHECK(previous_error < 2.5e-5); // (2π³/3)/M² at M = 1024
}

TEST_CASE("Chen in log form: BCH of the parts' log-signatures", "[logsig][chen][bch]") {
  // Z = X + Y + ½[X,Y] + (1/12)([X,[X,Y]] + [Y,[Y,X]]) - (1/24)[Y,[X,[X,Y]]]
  // is exact up to degree 4; computed in the truncated algebra from the two
  // parts' expanded log-signatures, compared with the whole path's.
  const int d = 3;
  const auto p = random_path(9, d, 5);
  for (int N : {2, 3, 4}) {
    INFO("depth " << N);
    LogSignature ls(d, N, LogSigMode::expand);
    const TensorShape& s = ls.shape();
    std::vector<double> X(s.size()), Y(s.size()), whole(s.size());
    ls.compute(std::span<const double>(p).first(5 * d), X.data());
    ls.compute(std::span<const double>(p).subspan(4 * d), Y.data());
    ls.compute(p, whole.data());
    const auto XY = bracket(s, X, Y);
    const auto XXY = bracket(s, X, XY);
    const auto YYX = bracket(s, Y, bracket(s, Y, X));
    const auto YXXY = bracket(s, Y, XXY);
    std::vector<double> Z(s.size());
    for (std::size_t i = 0; i < s.size(); ++i)
      Z[i] = X[i] + Y[i] + 0.5 * XY[i] + (XXY[i] + YYX[i]) / 12.0 - YXXY[i] / 24.0;
    check_close(whole, Z, 1e-12);
    // The same through exp/log: log(exp(X) exp(Y)).
    std::vector<double> eX(s.size()), eY(s.size()), prod(s.size()), back(s.size()),
        scratch(2 * s.size());
    tensor_exp(s, X.data(), eX.data(), scratch.data());
    tensor_exp(s, Y.data(), eY.data(), scratch.data());
    tensor_mul(s, 1.0, eX.data(), 1.0, eY.data(), prod.data());
    tensor_log(s, prod.data(), back.data(), scratch.data());
    check_close(whole, back, 1e-12);
  }
}

TEST_CASE("reparametrisation: extra points on a straight segment change nothing",
          "[logsig][reparam]") {
  const int d = 2;
  const std::vector<double> p{0, 0, 1, 2, 4, 1, 3, 3};
  std::vector<double> q{0, 0};
  for (double f : {0.1, 0.35, 0.8, 1.0}) { // three extra points on the first segment
    q.push_back(f * 1.0);
    q.push_back(f * 2.0);
  }
  q.insert(q.end(), {2.5, 1.5, 4, 1, 3, 3}); // one on the second segment
  for (int N : {1, 2, 3, 4})
    check_close(logsig(p, d, N), logsig(q, d, N), 1e-13);
  // A repeated point (zero-length segment) changes nothing either.
  std::vector<double> r{0, 0, 0, 0, 1, 2, 4, 1, 4, 1, 3, 3};
  check_close(logsig(p, d, 4), logsig(r, d, 4), 1e-14);
}

TEST_CASE("modes agree: words = Lyndon entries of expand / brackets rebuild the log",
          "[logsig][modes]") {
  const int d = 3, N = 4;
  const auto p = random_path(6, d, 7);
  LogSignature ex(d, N, LogSigMode::expand), wo(d, N, LogSigMode::words),
      br(d, N, LogSigMode::brackets);
  std::vector<double> full(ex.size()), words(wo.size()), brackets(br.size());
  ex.compute(p, full.data());
  wo.compute(p, words.data());
  br.compute(p, brackets.data());
  const LyndonBasis& b = wo.basis();
  const TensorShape& s = ex.shape();
  for (std::size_t w = 0; w < b.size(); ++w)
    CHECK(words[w] == full[s.offset(b.length(w)) + b.level_index(w)]);
  // Σ_w c_w P_w, expanded into all words, must equal the whole tensor log —
  // non-Lyndon words included. This checks that the log is a Lie element and
  // that the brackets coordinates are right.
  std::vector<double> rebuilt(s.size(), 0.0);
  for (std::size_t w = 0; w < b.size(); ++w)
    for (const auto& [index, coeff] : expand_bracket(b, w))
      rebuilt[s.offset(b.length(w)) + index] += brackets[w] * coeff;
  check_close(full, rebuilt, 1e-12);
}

TEST_CASE("a single point has zero log-signature / bad input is refused", "[logsig]") {
  const std::vector<double> one{1.0, 2.0};
  const auto ls = logsig(one, 2, 3);
  for (double v : ls)
    CHECK(v == 0.0);
  LogSignature engine(2, 2);
  std::vector<double> out(engine.size());
  const std::vector<double> ragged{1.0, 2.0, 3.0};
  CHECK_THROWS_AS(engine.compute(ragged, out.data()),
                  plastic::InternalError); // LogSigPath never does this
  const auto no_channels = LogSignature::make(0, 2);
  REQUIRE_FALSE(no_channels.ok());
  CHECK(no_channels.error().message == "tensor algebra needs >= 1 channel, got 0");
  CHECK(parse_logsig_mode("words") == LogSigMode::words);
  CHECK(!parse_logsig_mode("lyndon").has_value());
}
