// (Semi-)orthogonal matrices (see orthogonal.h).
#include "runtime/init/orthogonal.h"

#include <algorithm>
#include <cmath>

#include <Eigen/Dense>
#include <fmt/format.h>

#include "runtime/init/elementwise.h"
#include "runtime/init/param_dims.h"

namespace plastic::rt::init_detail {

void semi_orthogonal(int64_t rows, int64_t cols, double gain, Rng& rng, std::span<double> out) {
  using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  // Draw in the tensor's row-major order, as torch's `new(rows, cols).normal_()`.
  Mat g(rows, cols);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      g(i, j) = rng.normal();
  const bool wide = rows < cols;
  Eigen::MatrixXd m = wide ? Eigen::MatrixXd(g.transpose()) : Eigen::MatrixXd(g);
  const Eigen::Index n = m.cols(); // m is tall: m.rows() >= n
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(m);
  Eigen::MatrixXd q = qr.householderQ() * Eigen::MatrixXd::Identity(m.rows(), n);
  // Sign correction: Q diag(sign(r_ii)) is unique and Haar (torch: q *= d.sign()).
  // r_ii = 0 has probability zero; treat it as +1 rather than zeroing a column.
  const auto& r = qr.matrixQR();
  for (Eigen::Index j = 0; j < n; ++j)
    if (r(j, j) < 0) q.col(j) = -q.col(j);
  Mat w = wide ? Mat(q.transpose()) : Mat(q);
  w *= gain;
  std::copy(w.data(), w.data() + w.size(), out.begin());
}

Status<TrainError> fill_orthogonal(const plastic_param& p, Rng& rng, std::span<double> out) {
  if (p.rank < 2)
    return invalid_argument_error(
        fmt::format("parameter {}: orthogonal needs a tensor of rank >= 2, got shape {}",
                    param_label(p), shape_string(p)),
        "use orthogonal for matrices (or batches of them); vectors take zeros/normal/uniform");
  const double gain = resolved_gain(p);
  if (!std::isfinite(gain))
    return invalid_argument_error(
        fmt::format("parameter {}: orthogonal gain {} is not finite", param_label(p), gain));
  const MatrixDims d = matrix_dims(p);
  const size_t block = static_cast<size_t>(d.rows * d.cols);
  for (int64_t b = 0; b < d.batch; ++b)
    semi_orthogonal(d.rows, d.cols, gain, rng, out.subspan(static_cast<size_t>(b) * block, block));
  return {};
}

} // namespace plastic::rt::init_detail
