// The check that data-parallel ranks still hold the same parameters: a hash
// of each rank's parameter bytes, compared across ranks before the first step and after every
// epoch. Ranks that sum gradients in the same order and step the same optimiser cannot drift apart
// unless something is wrong (a rank with other data or another build, a hardware fault); then every
// rank stops with the same message naming the ranks that differ, rather than train on silently.
#pragma once

#include <cstdint>
#include <span>

#include "runtime/distributed/communicator.h"
#include "runtime/support/train_error.h"

namespace plastic::rt {

/// 64-bit FNV-1a of the parameters' bytes.
template <class T> uint64_t parameter_hash(std::span<const T> params);

/// Collective: fails on every rank when the ranks' parameter hashes differ.
template <class T>
Status<TrainError> check_replicas(Communicator& comm, int64_t epoch, std::span<const T> params);

extern template uint64_t parameter_hash<float>(std::span<const float>);
extern template uint64_t parameter_hash<double>(std::span<const double>);
extern template Status<TrainError> check_replicas<float>(Communicator&, int64_t,
                                                         std::span<const float>);
extern template Status<TrainError> check_replicas<double>(Communicator&, int64_t,
                                                          std::span<const double>);

} // namespace plastic::rt
