// safetensors encoding and validating decoding (format notes in safetensors.h).
#include "runtime/io/safetensors.h"

#include <algorithm>
#include <limits>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runtime/io/atomic_file.h"
#include "runtime/io/param_table.h"

namespace plastic::rt {

namespace {

struct DTypeInfo {
  DType dtype;
  const char* name;
  size_t size;
};

constexpr DTypeInfo kDTypes[] = {
    {DType::BOOL, "BOOL", 1},       {DType::U8, "U8", 1},           {DType::I8, "I8", 1},
    {DType::F8_E5M2, "F8_E5M2", 1}, {DType::F8_E4M3, "F8_E4M3", 1}, {DType::I16, "I16", 2},
    {DType::U16, "U16", 2},         {DType::F16, "F16", 2},         {DType::BF16, "BF16", 2},
    {DType::I32, "I32", 4},         {DType::U32, "U32", 4},         {DType::F32, "F32", 4},
    {DType::F64, "F64", 8},         {DType::I64, "I64", 8},         {DType::U64, "U64", 8},
};

const DTypeInfo& info(DType d) {
  for (const DTypeInfo& i : kDTypes)
    if (i.dtype == d) return i;
  return kDTypes[0];
}

/// Product of dims times the element size, or false on overflow / negative dims.
bool byte_count(const std::vector<int64_t>& shape, size_t elem, uint64_t& out) {
  uint64_t n = elem;
  for (int64_t d : shape) {
    if (d < 0) return false;
    const uint64_t u = static_cast<uint64_t>(d);
    if (u != 0 && n > std::numeric_limits<uint64_t>::max() / u) return false;
    n *= u;
  }
  out = n;
  return true;
}

/// nlohmann::json keeps the last of duplicate keys silently; the format
/// disallows duplicates, so the parse callback tracks the keys of every open
/// object and flags a repeat.
struct DuplicateKeyCheck {
  std::vector<std::set<std::string>> open;
  std::string duplicate;

  bool operator()(int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (event == E::object_start)
      open.emplace_back();
    else if (event == E::object_end && !open.empty())
      open.pop_back();
    else if (event == E::key && !open.empty() &&
             !open.back().insert(parsed.get<std::string>()).second && duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  }
};

} // namespace

size_t dtype_size(DType dtype) {
  return info(dtype).size;
}
const char* dtype_name(DType dtype) {
  return info(dtype).name;
}

bool dtype_from_name(std::string_view name, DType& out) {
  for (const DTypeInfo& i : kDTypes)
    if (name == i.name) {
      out = i.dtype;
      return true;
    }
  return false;
}

int64_t NamedTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

const NamedTensor* SafetensorsFile::find(std::string_view name) const {
  for (const NamedTensor& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

Result<SafetensorsLayout, TrainError> layout_safetensors(const SafetensorsFile& file) {
  SafetensorsLayout layout;
  std::set<std::string_view> names;
  for (const NamedTensor& t : file.tensors) {
    if (t.name.empty()) return invalid_argument_error("safetensors: a tensor has an empty name");
    if (t.name == "__metadata__")
      return invalid_argument_error("safetensors: '__metadata__' is not a tensor name");
    if (!names.insert(t.name).second)
      return invalid_argument_error(fmt::format("safetensors: tensor '{}' appears twice", t.name));
    uint64_t bytes = 0;
    if (!byte_count(t.shape, dtype_size(t.dtype), bytes) || bytes != t.bytes.size())
      return invalid_argument_error(
          fmt::format("safetensors: tensor '{}' of dtype {} and shape {} holds {} bytes", t.name,
                      dtype_name(t.dtype), shape_string(t.shape), t.bytes.size()));
    layout.order.push_back(&t);
  }
  // Larger elements first, then by name: with the header padded to 8 bytes,
  // every tensor starts at a multiple of its element size.
  std::sort(layout.order.begin(), layout.order.end(),
            [](const NamedTensor* a, const NamedTensor* b) {
              const size_t sa = dtype_size(a->dtype), sb = dtype_size(b->dtype);
              return sa != sb ? sa > sb : a->name < b->name;
            });
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!file.metadata.empty()) header["__metadata__"] = file.metadata;
  uint64_t offset = 0;
  for (const NamedTensor* t : layout.order) {
    header[t->name] = {{"dtype", dtype_name(t->dtype)},
                       {"shape", t->shape},
                       {"data_offsets", {offset, offset + t->bytes.size()}}};
    offset += t->bytes.size();
  }
  layout.data_bytes = offset;
  // dump() throws on invalid UTF-8 in names or metadata; report it instead.
  std::string json;
  try {
    json = header.dump();
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument_error(
        fmt::format("safetensors: names and metadata must be UTF-8 ({})", e.what()));
  }
  json.append((8 - json.size() % 8) % 8, ' ');
  const uint64_t n = json.size();
  layout.header.resize(8);
  for (int i = 0; i < 8; ++i)
    layout.header[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  layout.header += json;
  return layout;
}

Result<std::vector<std::byte>, TrainError> encode_safetensors(const SafetensorsFile& file) {
  Result<SafetensorsLayout, TrainError> layout = layout_safetensors(file);
  if (!layout) return layout.error();
  const SafetensorsLayout& l = layout.value();
  std::vector<std::byte> out(l.header.size() + l.data_bytes);
  std::memcpy(out.data(), l.header.data(), l.header.size());
  size_t at = l.header.size();
  for (const NamedTensor* t : l.order) {
    if (!t->bytes.empty()) std::memcpy(out.data() + at, t->bytes.data(), t->bytes.size());
    at += t->bytes.size();
  }
  return out;
}

Result<SafetensorsFile, TrainError> decode_safetensors(std::span<const std::byte> data,
                                                       const std::string& name) {
  auto bad = [&](std::string message) { return format_error(name, std::move(message)); };
  if (data.size() < 8)
    return bad(fmt::format(
        "truncated: {} bytes, but a safetensors file starts with an 8-byte header length",
        data.size()));
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i)
    n |= static_cast<uint64_t>(std::to_integer<uint8_t>(data[i])) << (8 * i);
  if (n > kMaxSafetensorsHeader)
    return bad(fmt::format("header length {} exceeds the {} byte limit (not a safetensors file?)",
                           n, kMaxSafetensorsHeader));
  if (n > data.size() - 8)
    return bad(fmt::format("truncated: the header needs {} bytes but only {} follow the length", n,
                           data.size() - 8));
  const char* hbegin = reinterpret_cast<const char*>(data.data() + 8);
  if (n == 0 || hbegin[0] != '{')
    return bad("the header is not a JSON object (it must start with '{')");
  DuplicateKeyCheck dup;
  nlohmann::json header = nlohmann::json::parse(
      hbegin, hbegin + n, std::ref(dup), /*allow_exceptions=*/false, /*ignore_comments=*/false);
  if (header.is_discarded() || !header.is_object())
    return bad("the header is not valid JSON (or not valid UTF-8)");
  if (!dup.duplicate.empty())
    return bad(fmt::format("the header repeats the key '{}'", dup.duplicate));

  const uint64_t buffer = data.size() - 8 - n;
  const std::byte* base = data.data() + 8 + n;
  SafetensorsFile file;
  struct Range {
    uint64_t begin, end;
    size_t index;
  };
  std::vector<Range> ranges;
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& key = it.key();
    const nlohmann::json& v = it.value();
    if (key == "__metadata__") {
      if (!v.is_object()) return bad("'__metadata__' must be an object of strings");
      for (auto m = v.begin(); m != v.end(); ++m) {
        if (!m.value().is_string())
          return bad(fmt::format("metadata '{}' is not a string", m.key()));
        file.metadata[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    if (!v.is_object()) return bad(fmt::format("tensor '{}': entry is not an object", key));
    const auto dt = v.find("dtype");
    const auto sh = v.find("shape");
    const auto off = v.find("data_offsets");
    if (dt == v.end() || sh == v.end() || off == v.end())
      return bad(fmt::format("tensor '{}': needs dtype, shape and data_offsets", key));
    NamedTensor t;
    t.name = key;
    if (!dt->is_string() || !dtype_from_name(dt->get<std::string>(), t.dtype))
      return bad(fmt::format("tensor '{}': unknown dtype {}", key, dt->dump()));
    if (!sh->is_array()) return bad(fmt::format("tensor '{}': shape is not an array", key));
    for (const nlohmann::json& d : *sh) {
      if (!d.is_number_unsigned() ||
          d.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return bad(
            fmt::format("tensor '{}': shape {} has a dimension that is not a non-negative integer",
                        key, sh->dump()));
      t.shape.push_back(static_cast<int64_t>(d.get<uint64_t>()));
    }
    if (!off->is_array() || off->size() != 2 || !(*off)[0].is_number_unsigned() ||
        !(*off)[1].is_number_unsigned())
      return bad(fmt::format("tensor '{}': data_offsets {} is not [begin, end]", key, off->dump()));
    const uint64_t b = (*off)[0].get<uint64_t>(), e = (*off)[1].get<uint64_t>();
    if (b > e)
      return bad(
          fmt::format("tensor '{}': data_offsets [{}, {}] end before they begin", key, b, e));
    if (e > buffer)
      return bad(
          fmt::format("tensor '{}': data_offsets [{}, {}] lie outside the {}-byte data buffer{}",
                      key, b, e, buffer, " (truncated file?)"));
    uint64_t need = 0;
    if (!byte_count(t.shape, dtype_size(t.dtype), need))
      return bad(fmt::format("tensor '{}': shape {} overflows", key, shape_string(t.shape)));
    if (need != e - b)
      return bad(fmt::format(
          "tensor '{}': dtype {} and shape {} need {} bytes but data_offsets [{}, {}] hold {}", key,
          dtype_name(t.dtype), shape_string(t.shape), need, b, e, e - b));
    ranges.push_back({b, e, file.tensors.size()});
    file.tensors.push_back(std::move(t));
  }
  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t next = 0;
  const Range* prev = nullptr;
  for (const Range& r : ranges) {
    if (r.begin < next)
      return bad(fmt::format("tensors '{}' and '{}' overlap (bytes [{}, {}) and [{}, {}))",
                             file.tensors[prev->index].name, file.tensors[r.index].name,
                             prev->begin, prev->end, r.begin, r.end));
    if (r.begin > next)
      return bad(fmt::format("bytes [{}, {}) of the data buffer belong to no tensor (before '{}')",
                             next, r.begin, file.tensors[r.index].name));
    next = r.end;
    prev = &r;
  }
  if (next != buffer)
    return bad(fmt::format("bytes [{}, {}) at the end of the data buffer belong to no tensor", next,
                           buffer));
  // Copy the data out and put the tensors in file order.
  std::vector<NamedTensor> ordered;
  ordered.reserve(ranges.size());
  for (const Range& r : ranges) {
    NamedTensor& t = file.tensors[r.index];
    t.bytes.assign(base + r.begin, base + r.end);
    ordered.push_back(std::move(t));
  }
  file.tensors = std::move(ordered);
  return file;
}

Status<TrainError> write_safetensors(const std::filesystem::path& path,
                                     const SafetensorsFile& file) {
  Result<SafetensorsLayout, TrainError> layout = layout_safetensors(file);
  if (!layout) {
    TrainError e = layout.error();
    e.file = path.string();
    return e;
  }
  // Header and tensors are written as separate pieces: no second copy of the data.
  return write_file_atomic(path, layout.value().pieces());
}

Result<SafetensorsFile, TrainError> read_safetensors(const std::filesystem::path& path) {
  Result<std::vector<std::byte>, TrainError> data = read_file(path);
  if (!data) return data.error();
  return decode_safetensors(data.value(), path.string());
}

} // namespace plastic::rt
