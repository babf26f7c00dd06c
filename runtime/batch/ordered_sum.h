// Summing per-tile gradients in tile order, whatever order the threads
// finish them in, so a batch gradient is bitwise the same for any thread
// count: sum = ((g_0 + g_1) + g_2) + ... in double.
//
// A tile's gradient that arrives early waits in a pending buffer until all
// tiles before it have been added; buffers are recycled, so memory grows
// only with how far out of order tiles finish (about the thread count when
// tiles cost alike). The addition runs under a mutex: O(P) per tile, small
// next to the tile's solve.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <vector>

namespace plastic::rt {

class OrderedSum {
public:
  explicit OrderedSum(size_t size) : sum_(size, 0.0) {}

  /// Adds tile `index`'s vector (size() values) once every earlier tile has been added.
  template <class T> void deposit(size_t index, const T* values) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (index != next_) {
      std::vector<double> buffer = take_buffer();
      for (size_t i = 0; i < sum_.size(); ++i)
        buffer[i] = static_cast<double>(values[i]);
      pending_.emplace(index, std::move(buffer));
      return;
    }
    for (size_t i = 0; i < sum_.size(); ++i)
      sum_[i] += static_cast<double>(values[i]);
    ++next_;
    for (auto it = pending_.find(next_); it != pending_.end(); it = pending_.find(next_)) {
      for (size_t i = 0; i < sum_.size(); ++i)
        sum_[i] += it->second[i];
      free_.push_back(std::move(it->second));
      pending_.erase(it);
      ++next_;
    }
  }

  /// Tiles added so far (in order); tiles deposited after a gap are not counted.
  size_t added() const { return next_; }
  const std::vector<double>& sum() const { return sum_; }

private:
  std::vector<double> take_buffer() {
    if (free_.empty()) return std::vector<double>(sum_.size());
    std::vector<double> b = std::move(free_.back());
    free_.pop_back();
    return b;
  }

  std::mutex mutex_;
  std::vector<double> sum_;
  size_t next_ = 0;
  std::map<size_t, std::vector<double>> pending_;
  std::vector<std::vector<double>> free_;
};

} // namespace plastic::rt
