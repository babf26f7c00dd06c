// The eigenvalues of a matrix from the diagonal blocks of its block
// triangular form.
//
// A field's Jacobian is often made of many small coupled groups: in the
// Delta-rule CDE each row of each head's fast weight matrix W[h, i, :]
// changes only with itself (W' = β (v − W k) kᵀ: row i reads row i), so
// the 1600 × 1600 Jacobian of examples/fwp_delta_cde_character.ode is 80
// blocks of 20 after a permutation. The strongly connected components of
// the graph "z_j appears in f_i" (J(i, j) ≠ 0) order the states so that J
// is block triangular, and the eigenvalues of a block triangular matrix
// are those of its diagonal blocks. Exact (no entry is dropped, a zero is
// a zero), and O(Σ b³) instead of O(n³): seconds become milliseconds.
#pragma once

#include <complex>
#include <cstdint>
#include <vector>

#include <Eigen/Core>

namespace plastic::analysis {

/// The strongly connected components of J's non-zero pattern (edge j → i
/// when J(i, j) ≠ 0), each a list of state indices.
std::vector<std::vector<Eigen::Index>> coupled_blocks(const Eigen::MatrixXd& J);

/// Every eigenvalue of the square matrix J (with multiplicity), computed
/// block by block, and the blocks' sizes.
struct BlockSpectrum {
  std::vector<std::complex<double>> eigenvalues;
  int64_t blocks = 0;
  int64_t largest_block = 0;
};
BlockSpectrum block_spectrum(const Eigen::MatrixXd& J);

} // namespace plastic::analysis
