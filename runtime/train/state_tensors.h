// Converting training state to and from named tensors for checkpoints.
//
// Parameters are saved one tensor per parameter with the table's names and
// shapes, so a checkpoint is also an ordinary state dict that Python can
// read. Optimiser buffers follow torch's state layout, split the same way:
// "exp_avg/ff.w1", "exp_avg_sq/ff.w1", ...; the step count is the I64
// scalar "step"; kind and hyper-parameters go to the file's metadata.
// A prefix ("best/") lets several copies of theta share one file; names
// owned by a prefix are the prefix followed by a name without '/'.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/io/param_table.h"
#include "runtime/io/safetensors.h"
#include "runtime/support/train_error.h"
#include "runtime/train/optimizer.h"

namespace plastic::rt {

/// One tensor per table entry, named prefix + name, copied from theta
/// (which must have the table's size).
template <class T>
Result<std::vector<NamedTensor>, TrainError>
params_to_tensors(const ParamTable& table, std::span<const T> theta, std::string_view prefix = "");

/// Fills theta from the tensors named prefix + name. Every table entry must be
/// present with the same shape and dtype, and the file must hold no other
/// tensor under the prefix (that would be a different model). `file` labels errors.
template <class T>
Status<TrainError> params_from_tensors(const ParamTable& table, const SafetensorsFile& tensors,
                                       std::span<T> theta, std::string_view prefix,
                                       const std::string& file);

/// Whether the file holds any tensor under `prefix`.
bool has_prefix(const SafetensorsFile& tensors, std::string_view prefix);

/// An optimiser state as a safetensors file (layout above); buffers must have the table's size.
template <class T>
Result<SafetensorsFile, TrainError> optimizer_to_file(const ParamTable& table,
                                                      const OptimizerState<T>& state);

/// Reads what optimizer_to_file wrote, checking names, shapes and dtypes against the table.
template <class T>
Result<OptimizerState<T>, TrainError> optimizer_from_file(const ParamTable& table,
                                                          const SafetensorsFile& tensors,
                                                          const std::string& file);

} // namespace plastic::rt
