// Communicator over MPI_COMM_WORLD (see communicator.h for the contract).
//
// ordered_sum has two implementations with the same result bit for bit,
// chosen by PLASTIC_MPI_SUM (bench/README compares them):
//  * chain (default): rank r receives the running sum of ranks < r, adds its
//    items in order and passes it on; the last rank broadcasts the total.
//    Each rank sends and receives one vector of `width` doubles, in
//    segments (PLASTIC_MPI_SEGMENT doubles, default 16384; 0 = whole) that
//    follow each other down the chain, so the K-1 hops overlap.
//  * gather: MPI_Allgatherv of every rank's items, then every rank adds all
//    of them in order. One collective, but every rank receives all items
//    (tiles x width doubles).
// MPI_Allreduce is not used for the sum itself: its reduction order is the
// library's choice, so f64 results would depend on the rank count.
//
// Test hook: PLASTIC_MPI_TEST_KILL=R:N makes rank R kill itself (SIGKILL,
// as an OOM killer or a lost node would) at its N-th ordered_sum — the
// tests' "a rank dies mid-epoch". PLASTIC_MPI_STATS=1 prints, when the
// process ends (rank 0, stderr), the time spent in ordered_sum per vector
// width, split by a barrier into waiting for the slowest rank (load
// imbalance) and the sum itself (communication).
#include "runtime/distributed/mpi/mpi_communicator.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

// The C API only: Open MPI's mpi.h otherwise declares its deprecated C++
// bindings, which live in a library (libmpi_cxx) the C component does not link.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

namespace plastic::rt {

namespace {

class MpiCommunicator final : public Communicator {
public:
  MpiCommunicator() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    const char* sum = std::getenv("PLASTIC_MPI_SUM");
    gather_ = sum != nullptr && std::string(sum) == "gather";
    stats_ = std::getenv("PLASTIC_MPI_STATS") != nullptr;
    if (const char* seg = std::getenv("PLASTIC_MPI_SEGMENT"))
      segment_ = std::strtoul(seg, nullptr, 10);
    if (const char* kill = std::getenv("PLASTIC_MPI_TEST_KILL"))
      if (std::sscanf(kill, "%d:%ld", &kill_rank_, &kill_at_) != 2) kill_rank_ = -1;
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::vector<double> ordered_sum(std::span<const double> items, size_t width) override {
    if (rank_ == kill_rank_ && ++calls_ >= kill_at_) std::raise(SIGKILL);
    Timing& t = timings_[width];
    auto t0 = std::chrono::steady_clock::now();
    if (stats_) { // separate waiting for the slowest rank from the sum itself
      MPI_Barrier(MPI_COMM_WORLD);
      const auto t1 = std::chrono::steady_clock::now();
      t.waiting += std::chrono::duration<double>(t1 - t0).count();
      t0 = t1;
    }
    std::vector<double> sum = gather_ ? gathered_sum(items, width) : chained_sum(items, width);
    t.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++t.sums;
    return sum;
  }

  std::vector<int64_t> all_gather(int64_t value) override {
    std::vector<int64_t> all(static_cast<size_t>(size_));
    MPI_Allgather(&value, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, MPI_COMM_WORLD);
    return all;
  }

  void broadcast(std::string& bytes, int root) override {
    int64_t n = static_cast<int64_t>(bytes.size());
    MPI_Bcast(&n, 1, MPI_INT64_T, root, MPI_COMM_WORLD);
    bytes.resize(static_cast<size_t>(n));
    MPI_Bcast(bytes.data(), static_cast<int>(n), MPI_CHAR, root, MPI_COMM_WORLD);
  }

  void barrier() override { MPI_Barrier(MPI_COMM_WORLD); }

  [[noreturn]] void abort(const std::string& message, int exit_code) override {
    std::fprintf(stderr, "plastic: rank %d of %d: %s\n", rank_, size_, message.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, exit_code);
    std::_Exit(exit_code); // MPI_Abort does not return; this says so to the compiler
  }

  /// One line per vector width (gradients + 1; predictions), on rank 0.
  void print_stats() const {
    if (rank_ != 0 || !stats_) return;
    for (const auto& [width, t] : timings_)
      std::fprintf(stderr,
                   "mpi: %d ranks, %s sum of %zu doubles: %ld sums, %.3f ms each (%.3f s in all), "
                   "%.3f ms each waiting for the slowest rank before\n",
                   size_, gather_ ? "gather" : "chain", width, t.sums,
                   1e3 * t.seconds / static_cast<double>(t.sums), t.seconds,
                   1e3 * t.waiting / static_cast<double>(t.sums));
  }

private:
  std::vector<double> chained_sum(std::span<const double> items, size_t width) {
    std::vector<double> sum(width, 0.0);
    // Segment by segment, so that rank r adds segment s while rank r + 1
    // adds segment s - 1: the K - 1 hops overlap instead of each waiting for
    // the whole vector. Every element still gets the previous ranks' sum
    // first, then this rank's items in order.
    const size_t step = segment_ > 0 ? segment_ : std::max<size_t>(width, 1);
    for (size_t first = 0; first < width; first += step) {
      const size_t count = std::min(step, width - first);
      double* seg = sum.data() + first;
      const int n = static_cast<int>(count);
      if (rank_ > 0)
        MPI_Recv(seg, n, MPI_DOUBLE, rank_ - 1, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (size_t item = 0; item + width <= items.size(); item += width)
        for (size_t i = 0; i < count; ++i)
          seg[i] += items[item + first + i];
      if (rank_ + 1 < size_) MPI_Send(seg, n, MPI_DOUBLE, rank_ + 1, kTag, MPI_COMM_WORLD);
    }
    MPI_Bcast(sum.data(), static_cast<int>(width), MPI_DOUBLE, size_ - 1, MPI_COMM_WORLD);
    return sum;
  }

  std::vector<double> gathered_sum(std::span<const double> items, size_t width) {
    const int mine = static_cast<int>(items.size());
    std::vector<int> counts(static_cast<size_t>(size_)), offsets(static_cast<size_t>(size_));
    MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
    size_t total = 0;
    for (size_t r = 0; r < counts.size(); ++r) {
      offsets[r] = static_cast<int>(total);
      total += static_cast<size_t>(counts[r]);
    }
    std::vector<double> all(total);
    MPI_Allgatherv(items.data(), mine, MPI_DOUBLE, all.data(), counts.data(), offsets.data(),
                   MPI_DOUBLE, MPI_COMM_WORLD);
    std::vector<double> sum(width, 0.0);
    add_items(sum, all, width);
    return sum;
  }

  static void add_items(std::vector<double>& sum, std::span<const double> items, size_t width) {
    for (size_t first = 0; first + width <= items.size(); first += width)
      for (size_t i = 0; i < width; ++i)
        sum[i] += items[first + i];
  }

  static constexpr int kTag = 17;
  int rank_ = 0, size_ = 1;
  bool gather_ = false;
  size_t segment_ = 16384; ///< doubles per chain segment (128 KB); 0 = the whole vector
  int kill_rank_ = -1;
  long kill_at_ = 0, calls_ = 0;
  bool stats_ = false;
  struct Timing {
    long sums = 0;
    double seconds = 0; ///< rank 0's time in the sum, once every rank has arrived
    double waiting = 0; ///< rank 0's time waiting for the other ranks to arrive
  };
  std::map<size_t, Timing> timings_;
};

std::unique_ptr<MpiCommunicator>& instance() {
  static std::unique_ptr<MpiCommunicator> comm;
  return comm;
}

void finish_mpi() {
  if (instance()) instance()->print_stats();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

} // namespace

void start_mpi(int& argc, char**& argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  instance() = std::make_unique<MpiCommunicator>();
  std::atexit(finish_mpi);
}

Communicator* mpi_world() {
  return instance().get();
}

} // namespace plastic::rt
