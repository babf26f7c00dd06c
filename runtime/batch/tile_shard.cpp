// TileShard and agree_on_failure() (see tile_shard.h).
#include "runtime/batch/tile_shard.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace plastic::rt {

namespace {

std::string serialise(const SolveFailure& f) {
  nlohmann::json j = {{"kind", static_cast<int>(f.kind)},
                      {"lane", f.lane},
                      {"sample", f.sample},
                      {"t", f.t},
                      {"h", f.h},
                      {"message", f.message},
                      {"advice", f.advice}};
  return j.dump();
}

SolveFailure deserialise(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text);
  SolveFailure f;
  f.kind = static_cast<FailureKind>(j["kind"].get<int>());
  f.lane = j["lane"].get<int>();
  f.sample = j["sample"].get<int64_t>();
  // JSON has no NaN: nlohmann writes null for it.
  f.t = j["t"].is_number() ? j["t"].get<double>() : std::numeric_limits<double>::quiet_NaN();
  f.h = j["h"].is_number() ? j["h"].get<double>() : std::numeric_limits<double>::quiet_NaN();
  f.message = j["message"].get<std::string>();
  f.advice = j["advice"].get<std::string>();
  return f;
}

} // namespace

TileShard::TileShard(Communicator* c, size_t tile_total) : comm(c), tiles(tile_total) {
  range = distributed() ? shard(tiles, comm->rank(), comm->size()) : TileRange{0, tiles};
}

Status<SolveFailure> agree_on_failure(const TileShard& shard,
                                      std::span<Status<SolveFailure>> local) {
  constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
  int64_t first = kNone;
  for (size_t i = 0; i < local.size(); ++i)
    if (!local[i]) {
      first = static_cast<int64_t>(shard.range.first + i);
      break;
    }
  if (!shard.distributed())
    return first == kNone ? Status<SolveFailure>{} : local[static_cast<size_t>(first)];
  const std::vector<int64_t> all = shard.comm->all_gather(first);
  const int64_t failed = *std::min_element(all.begin(), all.end());
  if (failed == kNone) return {};
  const int owner = static_cast<int>(std::find(all.begin(), all.end(), failed) - all.begin());
  std::string bytes;
  if (owner == shard.comm->rank()) {
    SolveFailure f = local[static_cast<size_t>(failed) - shard.range.first].error();
    f.message = fmt::format("on rank {} of {}: {}", owner, shard.comm->size(), f.message);
    bytes = serialise(f);
  }
  shard.comm->broadcast(bytes, owner);
  return deserialise(bytes);
}

} // namespace plastic::rt
