// world(), the single-process communicator, launch detection and sharding
// (see communicator.h). The MPI communicator lives in mpi/, built only with
// PLASTIC_MPI.
#include "runtime/distributed/communicator.h"

#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#if PLASTIC_HAVE_MPI
#include "runtime/distributed/mpi/mpi_communicator.h"
#endif

namespace plastic::rt {

namespace {

class SingleProcess final : public Communicator {
public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::vector<double> ordered_sum(std::span<const double> items, size_t width) override {
    std::vector<double> sum(width, 0.0);
    for (size_t first = 0; first + width <= items.size(); first += width)
      for (size_t i = 0; i < width; ++i)
        sum[i] += items[first + i];
    return sum;
  }
  std::vector<int64_t> all_gather(int64_t value) override { return {value}; }
  void broadcast(std::string&, int) override {}
  void barrier() override {}
  [[noreturn]] void abort(const std::string& message, int exit_code) override {
    std::fprintf(stderr, "plastic: %s\n", message.c_str());
    std::exit(exit_code);
  }
};

bool env_set(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0';
}

} // namespace

std::unique_ptr<Communicator> make_single_process() {
  return std::make_unique<SingleProcess>();
}

bool launched_by_mpi() {
  return env_set("OMPI_COMM_WORLD_SIZE") || env_set("PMI_SIZE") || env_set("PMIX_RANK");
}

bool mpi_built() {
  return PLASTIC_HAVE_MPI != 0;
}

std::string init_distributed(int& argc, char**& argv) {
  if (!launched_by_mpi()) return {};
  if (!mpi_built())
    return "this build has no MPI support, but it was launched by mpirun/srun as one rank of a "
           "job: rebuild Plastic with Open MPI installed (libopenmpi-dev; the CMake option "
           "PLASTIC_MPI), or run it without mpirun";
#if PLASTIC_HAVE_MPI
  start_mpi(argc, argv);
#else
  (void)argc;
  (void)argv;
#endif
  if (!world().root()) (void)std::freopen("/dev/null", "w", stdout);
  return {};
}

int finish_distributed(int exit_code) {
  Communicator& comm = world();
  if (exit_code != 0 && comm.size() > 1)
    comm.abort(fmt::format("failed with exit code {}; ending every rank of the job", exit_code),
               exit_code);
  return exit_code;
}

Communicator& world() {
#if PLASTIC_HAVE_MPI
  if (Communicator* mpi = mpi_world()) return *mpi;
#endif
  static SingleProcess single;
  return single;
}

TileRange shard(size_t tiles, int rank, int size) {
  const size_t k = static_cast<size_t>(size), r = static_cast<size_t>(rank);
  return {tiles * r / k, tiles * (r + 1) / k};
}

int shard_owner(size_t tiles, int size, size_t k) {
  for (int r = 0; r < size; ++r)
    if (k < shard(tiles, r, size).last) return r;
  return size - 1;
}

} // namespace plastic::rt
