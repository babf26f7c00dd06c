// parallel_for(): an atomic work counter shared by a few std::threads.
#include "runtime/batch/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace plastic::rt {

int resolve_threads(int requested, size_t items) {
  size_t n = requested > 0 ? static_cast<size_t>(requested)
                           : std::max(1u, std::thread::hardware_concurrency());
  n = std::min(n, std::max<size_t>(items, 1));
  return static_cast<int>(n);
}

void parallel_for(size_t n, int threads, const std::function<bool(size_t, int)>& work) {
  const int workers = resolve_threads(threads, n);
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto run = [&](int worker) {
    while (!stop.load(std::memory_order_relaxed)) {
      const size_t item = next.fetch_add(1);
      if (item >= n) return;
      try {
        if (!work(item, worker)) stop = true;
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        stop = true;
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(workers - 1));
  for (int w = 1; w < workers; ++w)
    pool.emplace_back(run, w);
  run(0);
  for (std::thread& t : pool)
    t.join();
  if (error) std::rethrow_exception(error);
}

} // namespace plastic::rt
