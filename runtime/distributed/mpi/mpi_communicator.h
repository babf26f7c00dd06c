// The MPI communicator behind world() (built only with PLASTIC_MPI): the
// only file of Plastic that includes <mpi.h> is its .cpp.
#pragma once

#include "runtime/distributed/communicator.h"

namespace plastic::rt {

/// MPI_Init_thread (funnelled: only the main thread calls MPI) and
/// MPI_Finalize at exit.
void start_mpi(int& argc, char**& argv);

/// The MPI communicator once start_mpi ran, else null.
Communicator* mpi_world();

} // namespace plastic::rt
