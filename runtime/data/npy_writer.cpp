// Writing `.npy` files (see npy.h), e.g. to hand predictions to NumPy.
#include <bit>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>

#include <fmt/format.h>

#include "runtime/data/npy.h"

namespace plastic::rt {
namespace {

template <class T> void store(std::string& out, T v) {
  char b[sizeof v];
  std::memcpy(b, &v, sizeof v);
  if constexpr (std::endian::native == std::endian::big)
    for (std::size_t i = 0; i < sizeof v / 2; ++i)
      std::swap(b[i], b[sizeof v - 1 - i]);
  out.append(b, sizeof v);
}

// numpy writes a 1-tuple as "(n,)" and a 0-d shape as "()".
std::string shape_tuple(std::span<const std::size_t> shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

Status<DataError> write_bytes(const std::filesystem::path& file, const std::string& bytes) {
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  std::unique_ptr<std::FILE, Closer> f(std::fopen(file.c_str(), "wb"));
  if (!f) return file_error(file.string(), "cannot open the file for writing");
  if (std::fwrite(bytes.data(), 1, bytes.size(), f.get()) != bytes.size())
    return file_error(file.string(), "write error");
  if (std::fclose(f.release()) != 0)
    return file_error(file.string(), "write error when closing the file");
  return {};
}

} // namespace

Result<std::string, DataError> encode_npy(std::span<const double> data,
                                          std::span<const std::size_t> shape, NpyDtype dtype) {
  try {
    if (dtype != NpyDtype::F32 && dtype != NpyDtype::F64)
      return file_error("",
                        fmt::format("writing dtype '{}' is not supported (only '<f4' and '<f8')",
                                    npy_descr(dtype)));
    std::size_t count = 1;
    for (std::size_t d : shape)
      count *= d;
    if (count != data.size())
      return file_error("", fmt::format("shape {} holds {} elements, the data has {}",
                                        shape_tuple(shape), count, data.size()));
    std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
                                     npy_descr(dtype), shape_tuple(shape));
    // Pad with spaces and end with '\n' so that the data starts on a 64-byte
    // boundary (numpy's own alignment); 2.0 only when 1.0's 2-byte length is too small.
    const bool v2 = header.size() + 1 + 10 > 65535;
    const std::size_t prefix = v2 ? 12 : 10;
    const std::size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
    header.append(total - prefix - header.size() - 1, ' ');
    header.push_back('\n');
    std::string out("\x93NUMPY", 6);
    out.push_back(static_cast<char>(v2 ? 2 : 1));
    out.push_back(0);
    if (v2)
      store<uint32_t>(out, static_cast<uint32_t>(header.size()));
    else
      store<uint16_t>(out, static_cast<uint16_t>(header.size()));
    out += header;
    out.reserve(out.size() + data.size() * (dtype == NpyDtype::F32 ? 4 : 8));
    for (double x : data) {
      if (dtype == NpyDtype::F32)
        store<float>(out, static_cast<float>(x));
      else
        store<double>(out, x);
    }
    return out;
  } catch (const std::exception& e) {
    return file_error("", fmt::format("internal error while encoding: {}", e.what()));
  }
}

Status<DataError> write_npy(const std::filesystem::path& file, std::span<const double> data,
                            std::span<const std::size_t> shape, NpyDtype dtype) {
  auto bytes = encode_npy(data, shape, dtype);
  if (!bytes) {
    DataError e = bytes.error();
    e.file = file.string();
    return e;
  }
  return write_bytes(file, *bytes);
}

Status<DataError> write_npy(const std::filesystem::path& file, std::span<const float> data,
                            std::span<const std::size_t> shape) {
  try {
    const std::vector<double> wide(data.begin(), data.end()); // float -> double -> float is exact
    return write_npy(file, wide, shape, NpyDtype::F32);
  } catch (const std::exception& e) {
    return file_error(file.string(), fmt::format("internal error while writing: {}", e.what()));
  }
}

} // namespace plastic::rt
