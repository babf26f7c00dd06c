// The cost of the ranks' ordered gradient sum (runtime/distributed), alone:
// `mpirun -np K bench_mpi_sum [TILES_PER_RANK]` times Communicator::
// ordered_sum for gradient sizes from 1e3 to 1e6 doubles, each rank holding
// TILES_PER_RANK tile vectors (default 2: a batch of 32 on 8 lanes and 2
// ranks). PLASTIC_MPI_SUM=gather times the Allgatherv variant instead of
// the chain. Each sum starts after a barrier, so the time is communication
// and the additions, not waiting for a slow rank. Prints rank 0's median.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "runtime/distributed/communicator.h"

int main(int argc, char** argv) {
  using plastic::rt::world;
  if (!plastic::rt::init_distributed(argc, argv).empty() || !plastic::rt::launched_by_mpi()) {
    std::fprintf(stderr, "run under mpirun: mpirun -np K bench_mpi_sum [TILES_PER_RANK]\n");
    return 2;
  }
  const size_t tiles = argc > 1 ? static_cast<size_t>(std::atoi(argv[1])) : 2;
  const char* method = std::getenv("PLASTIC_MPI_SUM");
  for (size_t width : {1000, 10000, 54357, 100000, 1000000}) {
    std::vector<double> items(tiles * width, 1.0 / 3.0);
    const int reps = width >= 1000000 ? 10 : 40;
    std::vector<double> ms;
    for (int r = 0; r < reps + 2; ++r) {
      world().barrier();
      const auto t0 = std::chrono::steady_clock::now();
      const std::vector<double> sum = world().ordered_sum(items, width);
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (r >= 2) ms.push_back(1e3 * t); // the first two warm the connections up
      if (sum.size() != width) return 1;
    }
    std::sort(ms.begin(), ms.end());
    if (world().root())
      std::printf("%d ranks, %zu tiles each, %-6s sum of %7zu doubles: median %8.3f ms\n",
                  world().size(), tiles, method ? method : "chain", width, ms[ms.size() / 2]);
  }
  return 0;
}
