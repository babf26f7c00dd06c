// Reading and writing safetensors files (the Hugging Face format, so
// checkpoints open in Python with `safetensors.safe_open`).
//
// Layout: an 8-byte little-endian unsigned header length N; N bytes of UTF-8
// JSON mapping each tensor name to {"dtype", "shape", "data_offsets":
// [begin, end)} (offsets relative to the data buffer), plus an optional
// "__metadata__" object of string values; then the data buffer, raw
// little-endian, row-major. Writing follows the reference implementation:
// the header is padded with spaces to a multiple of 8 bytes and tensors are
// laid out by decreasing element size, then name, so every tensor is
// aligned to its element size. Reading checks everything the reference
// checks and a little more: the length against the file and the 100 MB cap,
// the header starts with '{' and is valid JSON without duplicate keys, every
// entry is well typed, dtypes are known, shape products do not overflow and
// match the byte ranges, ranges lie inside the buffer, do not overlap and
// leave no hole (the format forbids holes so a file cannot be a polyglot),
// and the buffer has no trailing bytes. Errors name the file and the tensor.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "runtime/support/train_error.h"

namespace plastic::rt {

// Tensor bytes are copied as they are in memory; a big-endian host would
// need byte swapping, which nothing here does yet.
static_assert(std::endian::native == std::endian::little,
              "safetensors I/O assumes a little-endian host");

/// The element types of the safetensors format (the reference's list).
enum class DType {
  BOOL,
  U8,
  I8,
  F8_E5M2,
  F8_E4M3,
  I16,
  U16,
  F16,
  BF16,
  I32,
  U32,
  F32,
  F64,
  I64,
  U64
};

/// Bytes per element.
size_t dtype_size(DType dtype);
/// The format's spelling ("F32").
const char* dtype_name(DType dtype);
/// Parses a dtype name; false when unknown.
bool dtype_from_name(std::string_view name, DType& out);

/// The dtype of a C++ element type.
template <class T> constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, float>)
    return DType::F32;
  else if constexpr (std::is_same_v<T, double>)
    return DType::F64;
  else if constexpr (std::is_same_v<T, int64_t>)
    return DType::I64;
  else if constexpr (std::is_same_v<T, int32_t>)
    return DType::I32;
  else if constexpr (std::is_same_v<T, uint64_t>)
    return DType::U64;
  else if constexpr (std::is_same_v<T, uint32_t>)
    return DType::U32;
  else if constexpr (std::is_same_v<T, int16_t>)
    return DType::I16;
  else if constexpr (std::is_same_v<T, uint16_t>)
    return DType::U16;
  else if constexpr (std::is_same_v<T, int8_t>)
    return DType::I8;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return DType::U8;
  else
    static_assert(sizeof(T) == 0, "no safetensors dtype for this type");
}

/// One named tensor with its raw bytes.
struct NamedTensor {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape; ///< empty for a scalar
  std::vector<std::byte> bytes;

  /// Product of the shape (1 for a scalar).
  int64_t numel() const;

  /// A tensor holding a copy of `values` (values.size() must equal the shape's product).
  template <class T>
  static NamedTensor of(std::string name, std::vector<int64_t> shape, std::span<const T> values) {
    NamedTensor t{std::move(name), dtype_of<T>(), std::move(shape), {}};
    t.bytes.resize(values.size_bytes());
    if (!values.empty()) std::memcpy(t.bytes.data(), values.data(), values.size_bytes());
    return t;
  }

  /// The elements as T; fails when the dtype is not T's.
  template <class T> Result<std::vector<T>, TrainError> values() const {
    if (dtype != dtype_of<T>())
      return mismatch_error({}, std::string("tensor '") + name + "' has dtype " +
                                    dtype_name(dtype) + ", expected " + dtype_name(dtype_of<T>()));
    std::vector<T> out(bytes.size() / sizeof(T));
    if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
    return out;
  }
};

/// The contents of one safetensors file.
struct SafetensorsFile {
  std::vector<NamedTensor> tensors;            ///< in data-offset order when read
  std::map<std::string, std::string> metadata; ///< the "__metadata__" strings

  /// The tensor called `name`, or nullptr.
  const NamedTensor* find(std::string_view name) const;
};

/// The largest header accepted (the reference implementation's limit).
inline constexpr uint64_t kMaxSafetensorsHeader = 100'000'000;

/// The serialised header (length prefix included, padded) and the tensors in
/// file order; writers emit the header and then each tensor's bytes.
struct SafetensorsLayout {
  std::string header;                    ///< 8-byte length + JSON + padding
  std::vector<const NamedTensor*> order; ///< data buffer order
  uint64_t data_bytes = 0;

  /// The file's bytes as pieces in file order (header, then each tensor's
  /// data), without copying the data; valid while this layout and the
  /// tensors live.
  std::vector<std::span<const std::byte>> pieces() const {
    std::vector<std::span<const std::byte>> out;
    out.reserve(order.size() + 1);
    out.emplace_back(reinterpret_cast<const std::byte*>(header.data()), header.size());
    for (const NamedTensor* t : order)
      out.emplace_back(t->bytes.data(), t->bytes.size());
    return out;
  }
};

/// Plans a file: checks names (non-empty, unique, not "__metadata__") and
/// that each tensor's byte count matches its dtype and shape.
Result<SafetensorsLayout, TrainError> layout_safetensors(const SafetensorsFile& file);

/// The whole file in memory.
Result<std::vector<std::byte>, TrainError> encode_safetensors(const SafetensorsFile& file);

/// Parses and validates a whole file held in memory; `file_name` labels errors.
Result<SafetensorsFile, TrainError> decode_safetensors(std::span<const std::byte> data,
                                                       const std::string& file_name);

/// Writes atomically (temporary file, fsync, rename, fsync of the directory).
Status<TrainError> write_safetensors(const std::filesystem::path& path,
                                     const SafetensorsFile& file);

/// Reads and validates a file.
Result<SafetensorsFile, TrainError> read_safetensors(const std::filesystem::path& path);

} // namespace plastic::rt
