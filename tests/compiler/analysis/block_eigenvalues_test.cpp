// The block-by-block eigenvalues of compiler/analysis/block_eigenvalues.h
// against Eigen's dense solver: a matrix whose block triangular form is
// hidden by a permutation, a dense one, a diagonal one, and a long cycle
// (deep enough to show the component search does not recurse).
#include <catch2/catch.hpp>

#include <algorithm>
#include <complex>
#include <numeric>
#include <random>
#include <vector>

#include <Eigen/Eigenvalues>

#include "compiler/analysis/block_eigenvalues.h"

using namespace plastic;
using Complex = std::complex<double>;

namespace {

std::vector<Complex> dense_eigenvalues(const Eigen::MatrixXd& J) {
  Eigen::EigenSolver<Eigen::MatrixXd> es(J, false);
  std::vector<Complex> out;
  for (Eigen::Index i = 0; i < es.eigenvalues().size(); ++i)
    out.push_back(es.eigenvalues()[i]);
  return out;
}

// Every eigenvalue of `a` matched to a distinct one of `b` within `tol`.
bool same_spectrum(std::vector<Complex> a, std::vector<Complex> b, double tol) {
  if (a.size() != b.size()) return false;
  for (const Complex& x : a) {
    auto nearest = std::min_element(b.begin(), b.end(), [&](const Complex& p, const Complex& q) {
      return std::abs(p - x) < std::abs(q - x);
    });
    if (std::abs(*nearest - x) > tol) return false;
    b.erase(nearest);
  }
  return true;
}

// Blocks of the given sizes on the diagonal, random coupling above them
// (block upper triangular), then rows and columns permuted alike.
Eigen::MatrixXd hidden_block_triangular(const std::vector<int>& sizes, std::mt19937& rng) {
  const int n = std::accumulate(sizes.begin(), sizes.end(), 0);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n, n);
  int start = 0;
  for (int size : sizes) {
    for (int r = start; r < start + size; ++r)
      for (int c = start; c < n; ++c)
        A(r, c) = normal(rng);
    start += size;
  }
  std::vector<int> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  Eigen::MatrixXd J(n, n);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c)
      J(r, c) = A(order[static_cast<size_t>(r)], order[static_cast<size_t>(c)]);
  return J;
}

} // namespace

TEST_CASE("a permuted block triangular matrix: its blocks and the dense solver's eigenvalues",
          "[analysis][blocks]") {
  std::mt19937 rng(7);
  const std::vector<int> sizes{3, 1, 5, 2, 4};
  const Eigen::MatrixXd J = hidden_block_triangular(sizes, rng);
  auto blocks = analysis::coupled_blocks(J);
  std::vector<int> found;
  for (const auto& b : blocks)
    found.push_back(static_cast<int>(b.size()));
  std::sort(found.begin(), found.end());
  CHECK(found == std::vector<int>{1, 2, 3, 4, 5});
  const analysis::BlockSpectrum s = analysis::block_spectrum(J);
  CHECK(s.blocks == 5);
  CHECK(s.largest_block == 5);
  CHECK(same_spectrum(s.eigenvalues, dense_eigenvalues(J), 1e-9));
}

TEST_CASE("a dense matrix is one block and a diagonal one n blocks of one", "[analysis][blocks]") {
  std::mt19937 rng(3);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd dense(6, 6);
  for (Eigen::Index i = 0; i < dense.size(); ++i)
    dense.data()[i] = normal(rng);
  const analysis::BlockSpectrum d = analysis::block_spectrum(dense);
  CHECK(d.blocks == 1);
  CHECK(same_spectrum(d.eigenvalues, dense_eigenvalues(dense), 1e-10));

  Eigen::MatrixXd diagonal = Eigen::MatrixXd::Zero(4, 4);
  diagonal.diagonal() << -1, 0, 2.5, -3;
  const analysis::BlockSpectrum g = analysis::block_spectrum(diagonal);
  CHECK(g.blocks == 4);
  CHECK(g.largest_block == 1);
  CHECK(same_spectrum(g.eigenvalues, {-1, 0, 2.5, -3}, 0));
}

TEST_CASE("a cycle through every state is one block, found without recursion",
          "[analysis][blocks]") {
  // z_i' = z_{i+1} (indices mod n): one strongly connected component of
  // 2000 states, whose eigenvalues are the n-th roots of unity.
  const Eigen::Index n = 2000;
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    J(i, (i + 1) % n) = 1;
  const auto blocks = analysis::coupled_blocks(J);
  REQUIRE(blocks.size() == 1);
  CHECK(static_cast<Eigen::Index>(blocks[0].size()) == n);
}
