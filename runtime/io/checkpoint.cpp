// Checkpoint directories (file layout and crash-safety argument in checkpoint.h).
#include "runtime/io/checkpoint.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>
#include <system_error>

#include <fmt/format.h>

#include "runtime/io/atomic_file.h"
#include "runtime/support/json_util.h"

namespace plastic::rt {

namespace {

namespace fs = std::filesystem;

constexpr const char* kFormat = "plastic-checkpoint";
constexpr int kVersion = 1;
constexpr const char* kJsonSuffix = ".json";
constexpr const char* kParamsSuffix = ".params.safetensors";
constexpr const char* kOptimSuffix = ".optim.safetensors";
constexpr uint64_t kMaxJsonBytes = 64u << 20;

/// A 64-bit checksum of file contents: four FNV-1a lanes over little-endian
/// 64-bit words (fast enough to hash large checkpoints), the tail and the
/// length folded in, lanes combined with MurmurHash3's finaliser. Each step
/// is a bijection of a lane's state, so any change confined to one region of
/// the file changes the result. It guards against corruption, not attacks.
class Checksum {
public:
  void update(std::span<const std::byte> data) {
    total_ += data.size();
    while (!data.empty()) {
      const size_t take = std::min(data.size(), sizeof(buf_) - fill_);
      std::memcpy(buf_ + fill_, data.data(), take);
      fill_ += take;
      data = data.subspan(take);
      if (fill_ == sizeof(buf_)) {
        block(buf_);
        fill_ = 0;
      }
    }
  }
  uint64_t finish() {
    // The tail (fewer than 32 bytes) goes byte by byte into lane 0.
    for (size_t i = 0; i < fill_; ++i)
      lanes_[0] = (lanes_[0] ^ static_cast<uint8_t>(buf_[i])) * kPrime;
    uint64_t h = total_;
    for (uint64_t lane : lanes_)
      h = mix(h ^ mix(lane));
    return h;
  }

private:
  static constexpr uint64_t kPrime = 0x100000001b3ull;
  static uint64_t mix(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
  }
  void block(const unsigned char* p) {
    for (int i = 0; i < 4; ++i) {
      uint64_t w;
      std::memcpy(&w, p + 8 * i, 8);
      lanes_[i] = (lanes_[i] ^ w) * kPrime;
    }
  }
  uint64_t lanes_[4] = {0xcbf29ce484222325ull, 0xcbf29ce484222325ull ^ 1, 0xcbf29ce484222325ull ^ 2,
                        0xcbf29ce484222325ull ^ 3};
  unsigned char buf_[32];
  size_t fill_ = 0;
  uint64_t total_ = 0;
};

/// A checkpoint file name taken apart: "ckpt-<seq>-e<epoch><suffix>".
struct ParsedName {
  int64_t seq = 0, epoch = 0;
  std::string suffix;
};

std::optional<int64_t> parse_digits(std::string_view s, size_t& at) {
  const size_t start = at;
  int64_t v = 0;
  while (at < s.size() && s[at] >= '0' && s[at] <= '9' && at - start < 18)
    v = v * 10 + (s[at++] - '0');
  if (at == start) return std::nullopt;
  return v;
}

std::optional<ParsedName> parse_name(std::string_view name) {
  if (name.substr(0, 5) != "ckpt-") return std::nullopt;
  size_t at = 5;
  ParsedName p;
  const auto seq = parse_digits(name, at);
  if (!seq || name.substr(at, 2) != "-e") return std::nullopt;
  at += 2;
  const auto epoch = parse_digits(name, at);
  if (!epoch) return std::nullopt;
  p.seq = *seq;
  p.epoch = *epoch;
  p.suffix = std::string(name.substr(at));
  if (p.suffix != kJsonSuffix && p.suffix != kParamsSuffix && p.suffix != kOptimSuffix)
    return std::nullopt;
  return p;
}

std::string stem(int64_t seq, int64_t epoch) {
  return fmt::format("ckpt-{:08d}-e{:06d}", seq, epoch);
}

/// Every checkpoint-related file in the directory.
std::vector<std::pair<ParsedName, fs::path>> scan(const fs::path& dir) {
  std::vector<std::pair<ParsedName, fs::path>> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (auto p = parse_name(name)) out.emplace_back(*p, it->path());
  }
  return out;
}

/// The tensor file record stored in the JSON.
nlohmann::json file_record(const std::string& name, uint64_t bytes, uint64_t hash) {
  return {{"name", name}, {"bytes", bytes}, {"hash", fmt::format("fnv1a-4x64:{:016x}", hash)}};
}

/// Writes one safetensors file atomically, returning its record.
Result<nlohmann::json, TrainError> write_tensor_file(const fs::path& path,
                                                     const SafetensorsFile& file) {
  Result<SafetensorsLayout, TrainError> layout = layout_safetensors(file);
  if (!layout) {
    TrainError e = layout.error();
    e.file = path.string();
    return e;
  }
  const SafetensorsLayout& l = layout.value();
  const std::vector<std::span<const std::byte>> pieces = l.pieces();
  Checksum sum;
  uint64_t bytes = 0;
  for (auto piece : pieces) {
    sum.update(piece);
    bytes += piece.size();
  }
  if (Status<TrainError> s = write_file_atomic(path, pieces); !s) return s.error();
  return file_record(path.filename().string(), bytes, sum.finish());
}

/// Reads a tensor file named by a JSON record, checking name, size and hash.
Result<SafetensorsFile, TrainError> read_tensor_file(const fs::path& dir,
                                                     const nlohmann::json& record,
                                                     const std::string& expected_name,
                                                     const std::string& json_file) {
  if (!record.is_object() || !record.contains("name") || !record["name"].is_string() ||
      !record.contains("bytes") || !record["bytes"].is_number_unsigned() ||
      !record.contains("hash") || !record["hash"].is_string())
    return format_error(json_file, "malformed file record");
  // The name must be the one this checkpoint's stem implies: a record cannot
  // point outside the directory or at another checkpoint's data.
  if (record["name"].get<std::string>() != expected_name)
    return format_error(json_file, fmt::format("file record names '{}', expected '{}'",
                                               record["name"].get<std::string>(), expected_name));
  const fs::path path = dir / expected_name;
  const uint64_t bytes = record["bytes"].get<uint64_t>();
  Result<std::vector<std::byte>, TrainError> data = read_file(path, bytes);
  if (!data) return data.error();
  if (data.value().size() != bytes)
    return format_error(path.string(), fmt::format("has {} bytes, the checkpoint recorded {}",
                                                   data.value().size(), bytes));
  Checksum sum;
  sum.update(data.value());
  const std::string hash = fmt::format("fnv1a-4x64:{:016x}", sum.finish());
  if (hash != record["hash"].get<std::string>())
    return format_error(path.string(),
                        fmt::format("content hash {} differs from the recorded {} (file corrupted)",
                                    hash, record["hash"].get<std::string>()));
  return decode_safetensors(data.value(), path.string());
}

} // namespace

Status<TrainError> check_model_hash(const CheckpointMeta& meta, const std::string& model_hash,
                                    const std::string& file) {
  if (meta.model_hash == model_hash) return {};
  return mismatch_error(
      file,
      fmt::format("the checkpoint was saved by model {} but this model is {}", meta.model_hash,
                  model_hash),
      "the spec, its dims or the element type changed; resume with the original model or start a "
      "new checkpoint directory");
}

Result<CheckpointDir, TrainError> CheckpointDir::open(const fs::path& dir, int keep_last) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return io_error(dir.string(), "cannot create the checkpoint directory: " + ec.message());
  // Make a newly created directory's own name durable (best effort).
  (void)sync_directory(dir.has_parent_path() ? dir.parent_path() : fs::path("."));
  if (!fs::is_directory(dir, ec)) return io_error(dir.string(), "is not a directory");
  CheckpointDir d(dir, keep_last);
  // Temporaries of interrupted atomic writes.
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (is_temporary_name(it->path().filename().string())) (void)remove_file(it->path());
  int64_t newest = 0;
  for (const auto& [p, path] : scan(dir))
    newest = std::max(newest, p.seq);
  if (Status<TrainError> s = d.prune(newest); !s) return s.error();
  return d;
}

std::vector<CheckpointEntry> CheckpointDir::list() const {
  std::vector<CheckpointEntry> out;
  for (const auto& [p, path] : scan(dir_))
    if (p.suffix == kJsonSuffix) out.push_back({p.seq, p.epoch, path});
  std::sort(out.begin(), out.end(),
            [](const CheckpointEntry& a, const CheckpointEntry& b) { return a.seq > b.seq; });
  return out;
}

Status<TrainError> CheckpointDir::prune(int64_t newest_seq) const {
  const std::vector<CheckpointEntry> entries = list();
  std::set<int64_t> kept;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (keep_last_ <= 0 || static_cast<int>(i) < keep_last_) {
      kept.insert(entries[i].seq);
      continue;
    }
    // The commit record goes first: from then on the checkpoint no longer exists.
    if (Status<TrainError> s = remove_file(entries[i].json); !s) return s;
  }
  // Data files without a commit record: old pruned checkpoints, or saves
  // interrupted before their JSON was written. Never touch a newer sequence
  // number than ours (there is none with one writer).
  for (const auto& [p, path] : scan(dir_))
    if (p.suffix != kJsonSuffix && !kept.count(p.seq) && p.seq <= newest_seq)
      if (Status<TrainError> s = remove_file(path); !s) return s;
  return sync_directory(dir_);
}

Result<CheckpointEntry, TrainError> CheckpointDir::save(const Checkpoint& ckpt) {
  if (ckpt.meta.epoch < 0 || ckpt.meta.step < 0)
    return invalid_argument_error(fmt::format("checkpoint epoch {} and step {} must be >= 0",
                                              ckpt.meta.epoch, ckpt.meta.step));
  int64_t seq = 0;
  for (const auto& [p, path] : scan(dir_))
    seq = std::max(seq, p.seq);
  ++seq;
  const std::string s = stem(seq, ckpt.meta.epoch);
  Result<nlohmann::json, TrainError> params =
      write_tensor_file(dir_ / (s + kParamsSuffix), ckpt.params);
  if (!params) return params.error();
  Result<nlohmann::json, TrainError> optim =
      write_tensor_file(dir_ / (s + kOptimSuffix), ckpt.optimizer);
  if (!optim) return optim.error();
  const CheckpointMeta& m = ckpt.meta;
  nlohmann::json j = {{"format", kFormat},
                      {"version", kVersion},
                      {"epoch", m.epoch},
                      {"step", m.step},
                      {"model_hash", m.model_hash},
                      {"dims", m.dims},
                      {"rng_state", m.rng_state},
                      {"best_metric", json_double(m.best_metric)},
                      {"config", m.config},
                      {"extra", m.extra},
                      {"files", {{"params", params.value()}, {"optimizer", optim.value()}}}};
  std::string text;
  try {
    text = j.dump(2) + "\n";
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument_error(
        fmt::format("checkpoint metadata is not valid UTF-8: {}", e.what()));
  }
  const fs::path json = dir_ / (s + kJsonSuffix);
  if (Status<TrainError> st = write_file_atomic(json, text); !st) return st.error();
  if (Status<TrainError> st = prune(seq); !st) return st.error();
  return CheckpointEntry{seq, m.epoch, json};
}

Result<Checkpoint, TrainError> CheckpointDir::load(const CheckpointEntry& entry) const {
  const std::string file = entry.json.string();
  Result<std::vector<std::byte>, TrainError> data = read_file(entry.json, kMaxJsonBytes);
  if (!data) return data.error();
  const auto* text = reinterpret_cast<const char*>(data.value().data());
  const nlohmann::json j = nlohmann::json::parse(text, text + data.value().size(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return format_error(file, "not valid JSON");
  if (!j.contains("format") || !j["format"].is_string() ||
      j["format"].get<std::string>() != kFormat)
    return format_error(file, "not a Plastic checkpoint");
  if (!j.contains("version") || !j["version"].is_number_integer() ||
      j["version"].get<int>() != kVersion)
    return format_error(
        file,
        fmt::format("unsupported checkpoint version (this build reads version {})", kVersion));
  Checkpoint c;
  CheckpointMeta& m = c.meta;
  const struct {
    const char* key;
    bool ok;
  } fields[] = {{"epoch", j.contains("epoch") && j["epoch"].is_number_integer()},
                {"step", j.contains("step") && j["step"].is_number_integer()},
                {"model_hash", j.contains("model_hash") && j["model_hash"].is_string()},
                {"dims", j.contains("dims") && j["dims"].is_object()},
                {"rng_state", j.contains("rng_state") && j["rng_state"].is_string()},
                {"best_metric", read_json_double(j, "best_metric").has_value()},
                {"config", j.contains("config")},
                {"extra", j.contains("extra")},
                {"files", j.contains("files") && j["files"].is_object()}};
  for (const auto& f : fields)
    if (!f.ok)
      return format_error(file, fmt::format("field '{}' is missing or has the wrong type", f.key));
  m.epoch = j["epoch"].get<int64_t>();
  m.step = j["step"].get<int64_t>();
  m.model_hash = j["model_hash"].get<std::string>();
  m.dims = j["dims"];
  m.rng_state = j["rng_state"].get<std::string>();
  m.best_metric = *read_json_double(j, "best_metric");
  m.config = j["config"];
  m.extra = j["extra"];
  if (m.epoch != entry.epoch)
    return format_error(file,
                        fmt::format("records epoch {} but its name says {}", m.epoch, entry.epoch));
  const std::string s = stem(entry.seq, entry.epoch);
  const nlohmann::json& files = j["files"];
  Result<SafetensorsFile, TrainError> params = read_tensor_file(
      dir_, files.contains("params") ? files["params"] : nlohmann::json(), s + kParamsSuffix, file);
  if (!params) return params.error();
  Result<SafetensorsFile, TrainError> optim =
      read_tensor_file(dir_, files.contains("optimizer") ? files["optimizer"] : nlohmann::json(),
                       s + kOptimSuffix, file);
  if (!optim) return optim.error();
  c.params = std::move(params).value();
  c.optimizer = std::move(optim).value();
  return c;
}

Result<LoadedCheckpoint, TrainError> CheckpointDir::load_latest() const {
  std::vector<TrainError> skipped;
  for (const CheckpointEntry& e : list()) {
    Result<Checkpoint, TrainError> c = load(e);
    if (c) return LoadedCheckpoint{std::move(c).value(), e, std::move(skipped)};
    skipped.push_back(c.error());
  }
  std::string why;
  for (const TrainError& e : skipped)
    why += "; " + e.describe();
  return TrainError{TrainErrorKind::NotFound,
                    dir_.string(),
                    skipped.empty() ? "no checkpoint in this directory"
                                    : "no valid checkpoint" + why,
                    {}};
}

} // namespace plastic::rt
