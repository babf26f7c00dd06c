// Eigenvalues block by block (see block_eigenvalues.h).
#include "compiler/analysis/block_eigenvalues.h"

#include <algorithm>

#include <Eigen/Eigenvalues>

namespace plastic::analysis {

namespace {

// Tarjan's algorithm without recursion (a 10^4-state model would overflow
// the stack of a recursive one): each frame is a vertex and the next
// neighbour to look at.
class StrongComponents {
public:
  explicit StrongComponents(const Eigen::MatrixXd& J)
      : n_(J.rows()), index_(static_cast<size_t>(n_), -1), low_(static_cast<size_t>(n_), 0),
        on_stack_(static_cast<size_t>(n_), false) {
    // Adjacency j → i for J(i, j) ≠ 0 (column-major: walk each column).
    successors_.resize(static_cast<size_t>(n_));
    for (Eigen::Index j = 0; j < n_; ++j)
      for (Eigen::Index i = 0; i < n_; ++i)
        if (i != j && J(i, j) != 0.0) successors_[static_cast<size_t>(j)].push_back(i);
  }

  std::vector<std::vector<Eigen::Index>> run() {
    for (Eigen::Index v = 0; v < n_; ++v)
      if (index_[static_cast<size_t>(v)] < 0) visit(v);
    return std::move(components_);
  }

private:
  struct Frame {
    Eigen::Index vertex;
    size_t next = 0;
  };

  void open(Eigen::Index v, std::vector<Frame>& frames) {
    index_[static_cast<size_t>(v)] = low_[static_cast<size_t>(v)] = counter_++;
    stack_.push_back(v);
    on_stack_[static_cast<size_t>(v)] = true;
    frames.push_back({v});
  }

  void visit(Eigen::Index root) {
    std::vector<Frame> frames;
    open(root, frames);
    while (!frames.empty()) {
      Frame& f = frames.back();
      const auto v = static_cast<size_t>(f.vertex);
      if (f.next < successors_[v].size()) {
        const Eigen::Index w = successors_[v][f.next++];
        const auto wi = static_cast<size_t>(w);
        if (index_[wi] < 0)
          open(w, frames); // invalidates f
        else if (on_stack_[wi])
          low_[v] = std::min(low_[v], index_[wi]);
        continue;
      }
      if (low_[v] == index_[v]) close_component(f.vertex);
      frames.pop_back();
      if (!frames.empty()) {
        const auto parent = static_cast<size_t>(frames.back().vertex);
        low_[parent] = std::min(low_[parent], low_[v]);
      }
    }
  }

  void close_component(Eigen::Index root) {
    std::vector<Eigen::Index> component;
    Eigen::Index w = -1;
    do {
      w = stack_.back();
      stack_.pop_back();
      on_stack_[static_cast<size_t>(w)] = false;
      component.push_back(w);
    } while (w != root);
    std::sort(component.begin(), component.end());
    components_.push_back(std::move(component));
  }

  Eigen::Index n_;
  std::vector<std::vector<Eigen::Index>> successors_;
  std::vector<Eigen::Index> index_, low_;
  std::vector<bool> on_stack_;
  std::vector<Eigen::Index> stack_;
  Eigen::Index counter_ = 0;
  std::vector<std::vector<Eigen::Index>> components_;
};

} // namespace

std::vector<std::vector<Eigen::Index>> coupled_blocks(const Eigen::MatrixXd& J) {
  return StrongComponents(J).run();
}

BlockSpectrum block_spectrum(const Eigen::MatrixXd& J) {
  BlockSpectrum spectrum;
  std::vector<std::complex<double>>& out = spectrum.eigenvalues;
  out.reserve(static_cast<size_t>(J.rows()));
  for (const std::vector<Eigen::Index>& block : coupled_blocks(J)) {
    ++spectrum.blocks;
    spectrum.largest_block = std::max(spectrum.largest_block, static_cast<int64_t>(block.size()));
    if (block.size() == 1) {
      out.emplace_back(J(block[0], block[0]));
      continue;
    }
    const auto b = static_cast<Eigen::Index>(block.size());
    Eigen::MatrixXd sub(b, b);
    for (Eigen::Index r = 0; r < b; ++r)
      for (Eigen::Index c = 0; c < b; ++c)
        sub(r, c) = J(block[static_cast<size_t>(r)], block[static_cast<size_t>(c)]);
    Eigen::EigenSolver<Eigen::MatrixXd> es(sub, /*computeEigenvectors=*/false);
    for (Eigen::Index i = 0; i < es.eigenvalues().size(); ++i)
      out.push_back(es.eigenvalues()[i]);
  }
  return spectrum;
}

} // namespace plastic::analysis
