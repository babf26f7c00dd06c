// parameter_hash() and check_replicas() (see replica_check.h).
#include "runtime/batch/replica_check.h"

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace plastic::rt {

template <class T> uint64_t parameter_hash(std::span<const T> params) {
  uint64_t h = 1469598103934665603ull; // FNV-1a, 64 bit
  const auto* bytes = reinterpret_cast<const unsigned char*>(params.data());
  for (size_t i = 0; i < params.size_bytes(); ++i) {
    h ^= bytes[i];
    h *= 1099511628211ull;
  }
  return h;
}

template <class T>
Status<TrainError> check_replicas(Communicator& comm, int64_t epoch, std::span<const T> params) {
  const uint64_t mine = parameter_hash<T>(params);
  int64_t as_signed = 0;
  std::memcpy(&as_signed, &mine, sizeof mine);
  const std::vector<int64_t> all = comm.all_gather(as_signed);
  std::map<int64_t, std::vector<int>> ranks_by_hash;
  for (size_t r = 0; r < all.size(); ++r)
    ranks_by_hash[all[r]].push_back(static_cast<int>(r));
  if (ranks_by_hash.size() == 1) return {};
  std::string groups;
  for (const auto& [hash, ranks] : ranks_by_hash)
    groups += fmt::format("{}ranks {} have {:016x}", groups.empty() ? "" : "; ",
                          fmt::join(ranks, ","), static_cast<uint64_t>(hash));
  return TrainError{TrainErrorKind::Mismatch,
                    {},
                    fmt::format("the ranks' parameters differ after epoch {} ({})", epoch, groups),
                    "every rank must run the same build on the same data and options, and see "
                    "the same run folder (a rank that does not find the checkpoints to resume "
                    "from starts over): check the hostfile's machines, the data and the run "
                    "folder each one reads"};
}

template uint64_t parameter_hash<float>(std::span<const float>);
template uint64_t parameter_hash<double>(std::span<const double>);
template Status<TrainError> check_replicas<float>(Communicator&, int64_t, std::span<const float>);
template Status<TrainError> check_replicas<double>(Communicator&, int64_t, std::span<const double>);

} // namespace plastic::rt
