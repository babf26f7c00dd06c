// Data-parallel ranks simulated by threads of one process, for the batch
// tests: a Communicator (runtime/distributed/communicator.h) whose
// collectives meet at a barrier, so the sharded batch engine can be compared
// with one process without mpirun. It implements the contract
// (ordered_sum adds rank 0's items first, each rank's in order, from 0.0);
// the MPI implementation of that contract is tested through mpirun by
// tests/distributed/mpi_train.sh.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "runtime/distributed/communicator.h"

namespace plastic::test {

class ThreadRanks {
public:
  explicit ThreadRanks(int size)
      : size_(size), doubles_(static_cast<size_t>(size)), ints_(static_cast<size_t>(size)) {}

  /// Runs body(comm) on `size` threads, one rank each, and waits for them.
  static void run(int size, const std::function<void(rt::Communicator&)>& body);

  void barrier() {
    std::unique_lock<std::mutex> lock(mutex_);
    const long generation = generation_;
    if (++arrived_ == size_) {
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
    } else {
      cv_.wait(lock, [&] { return generation_ != generation; });
    }
  }

  int size_;
  std::vector<std::vector<double>> doubles_;
  std::vector<int64_t> ints_;
  std::string bytes_;

private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int arrived_ = 0;
  long generation_ = 0;
};

class ThreadRank final : public rt::Communicator {
public:
  ThreadRank(ThreadRanks& shared, int rank) : s_(shared), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return s_.size_; }
  std::vector<double> ordered_sum(std::span<const double> items, size_t width) override {
    s_.doubles_[static_cast<size_t>(rank_)].assign(items.begin(), items.end());
    s_.barrier();
    std::vector<double> sum(width, 0.0);
    for (const std::vector<double>& mine : s_.doubles_)
      for (size_t first = 0; first + width <= mine.size(); first += width)
        for (size_t i = 0; i < width; ++i)
          sum[i] += mine[first + i];
    s_.barrier();
    return sum;
  }
  std::vector<int64_t> all_gather(int64_t value) override {
    s_.ints_[static_cast<size_t>(rank_)] = value;
    s_.barrier();
    std::vector<int64_t> all = s_.ints_;
    s_.barrier();
    return all;
  }
  void broadcast(std::string& bytes, int root) override {
    if (rank_ == root) s_.bytes_ = bytes;
    s_.barrier();
    bytes = s_.bytes_;
    s_.barrier();
  }
  void barrier() override { s_.barrier(); }
  [[noreturn]] void abort(const std::string& message, int) override {
    throw std::runtime_error("abort: " + message); // no test expects one
  }

private:
  ThreadRanks& s_;
  int rank_;
};

inline void ThreadRanks::run(int size, const std::function<void(rt::Communicator&)>& body) {
  ThreadRanks shared(size);
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r)
    threads.emplace_back([&shared, &body, r] {
      ThreadRank comm(shared, r);
      body(comm);
    });
  for (std::thread& t : threads)
    t.join();
}

} // namespace plastic::test
