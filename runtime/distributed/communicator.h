// The one seam between Plastic and a distributed engine (MPI): data-parallel
// training and evaluation talk to a Communicator, never to MPI itself, so
// no #ifdef spreads through the runtime.
//
// world() is the process's communicator: MPI's when Plastic was built with
// MPI (PLASTIC_MPI) and the process was launched by mpirun/srun, else a
// single process (rank 0 of 1) whose operations are the identity. A process
// launched by mpirun in a build without MPI is refused by
// init_distributed() (the driver and model binaries call it first).
//
// Determinism: ordered_sum() adds every rank's items in one fixed order —
// ranks in order, each rank's items in order, starting from 0.0 — which is
// the order runtime/batch/ordered_sum.h adds a single process's tiles in.
// So when rank r holds a contiguous range of a batch's tiles (shard()), the
// data-parallel sum is bitwise the single-process sum, for any rank count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace plastic::rt {

class Communicator {
public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  bool root() const { return rank() == 0; }

  /// `items` holds this rank's items, `width` doubles each, in order. Returns,
  /// on every rank, ((0 + a_0) + a_1) + ... over all ranks' items, rank 0's
  /// first. Every rank must call it with the same width.
  virtual std::vector<double> ordered_sum(std::span<const double> items, size_t width) = 0;
  /// Every rank's `value`, indexed by rank.
  virtual std::vector<int64_t> all_gather(int64_t value) = 0;
  /// Replaces `bytes` on every rank with root's.
  virtual void broadcast(std::string& bytes, int root) = 0;
  virtual void barrier() = 0;
  /// Prints "<program>: rank r of K: message" on stderr and ends every
  /// rank of the job with exit_code.
  [[noreturn]] virtual void abort(const std::string& message, int exit_code) = 0;
};

/// The process's communicator (created on first use; see the banner).
Communicator& world();

/// Call first thing in main. Starts the distributed engine when the
/// process was launched under one (a no-op otherwise; it ends at exit) and
/// sends the standard output of ranks other than 0 to /dev/null, so a job
/// prints its results once. Returns a message when the process was launched
/// under mpirun but this build has no MPI support (main prints it and
/// exits with 2), else "".
std::string init_distributed(int& argc, char**& argv);

/// Call with main's exit code before returning it: on a job of several
/// ranks a failing rank (it has printed why) ends the whole job with its
/// code (Communicator::abort), as the others may wait for it in a collective.
int finish_distributed(int exit_code);

/// True when a launcher (mpirun, srun) started this process as one rank of
/// several, read from its environment (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK).
bool launched_by_mpi();

/// Whether this build has MPI support (PLASTIC_MPI).
bool mpi_built();

/// The tiles [first, last) of `tiles` that rank `rank` of `size` computes:
/// contiguous, in order, sizes differing by at most one.
struct TileRange {
  size_t first = 0, last = 0;
  size_t size() const { return last - first; }
};
TileRange shard(size_t tiles, int rank, int size);
/// The rank whose shard holds tile k.
int shard_owner(size_t tiles, int size, size_t k);

/// The single-process communicator (rank 0 of 1).
std::unique_ptr<Communicator> make_single_process();

} // namespace plastic::rt
