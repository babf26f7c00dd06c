// NumPy `.npy` arrays: reading (format versions 1.0, 2.0 and 3.0), writing,
// and a directory of per-series arrays as a Dataset.
//
// The format (numpy/lib/format.py, NEP 1): the magic "\x93NUMPY", a major
// and minor version byte, the header length (2 bytes little-endian in 1.0,
// 4 bytes in 2.0 and 3.0), then a Python dict literal
// {'descr': '<f4', 'fortran_order': False, 'shape': (613, 17), } padded with
// spaces and a newline so the data starts on a 64-byte boundary, then the
// raw elements. Read: little-endian float32, float64, int32 and int64 in C
// order; anything else (big-endian, other types, structured dtypes, Fortran
// order) is refused with the dtype named. Elements are returned as doubles
// (an int64 beyond 2^53 would round). Written: float32 or float64, C order,
// version 1.0 unless the header needs 2.0.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/data/data_error.h"
#include "runtime/data/dataset.h"

namespace plastic::rt {

/// Element types understood.
enum class NpyDtype { F32, F64, I32, I64 };

/// The numpy descr string ("<f4", "<f8", "<i4", "<i8").
const char* npy_descr(NpyDtype dtype);

/// An array read from a `.npy` file.
struct NpyArray {
  NpyDtype dtype = NpyDtype::F64; ///< element type in the file
  std::vector<std::size_t> shape; ///< empty for a 0-d array
  std::vector<double> data;       ///< C order, product(shape) elements

  std::size_t size() const { return data.size(); }
};

/// Reads a `.npy` file.
Result<NpyArray, DataError> read_npy(const std::filesystem::path& file);
/// Parses `.npy` bytes; `file_name` is used in messages.
Result<NpyArray, DataError> parse_npy(std::string_view bytes, const std::string& file_name);

/// The bytes of a `.npy` file holding `data` (C order) with `shape`, stored
/// as float32 or float64 (`dtype` F32 or F64). Requires
/// data.size() == product(shape).
Result<std::string, DataError> encode_npy(std::span<const double> data,
                                          std::span<const std::size_t> shape,
                                          NpyDtype dtype = NpyDtype::F64);
/// Writes `data` (C order) with `shape` to `file` as float32 or float64.
Status<DataError> write_npy(const std::filesystem::path& file, std::span<const double> data,
                            std::span<const std::size_t> shape, NpyDtype dtype = NpyDtype::F64);
/// Writes float data as float32.
Status<DataError> write_npy(const std::filesystem::path& file, std::span<const float> data,
                            std::span<const std::size_t> shape);

/// Reads every `*.npy` file of `directory` as one sample: a [T, C] array is
/// T observations of C channels (a [T] array one channel) at times
/// 0, 1, ..., T-1, unlabelled. All files must have the same C. Files are
/// taken in natural name order (rollout_2 before rollout_10); the sample id
/// is the file stem, channels are dim_0, dim_1, ...
Result<Dataset, DataError> read_npy_series(const std::filesystem::path& directory);

} // namespace plastic::rt
