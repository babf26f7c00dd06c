// Trained parameters read back for a compiled model: a model.safetensors
// written by `train` (or a run folder holding one), refused when its
// model_hash names another model, another --set or another element type.
// One loader for `eval`, `predict`, model binaries and programs that embed
// a model (runtime/embed), so all of them accept and refuse the same files
// with the same messages.
#pragma once

#include <string>
#include <vector>

#include "runtime/abi.h"
#include "runtime/app/app_error.h"

namespace plastic::rt {

/// Reads the parameters at `where` (a .safetensors file, or a folder holding
/// model.safetensors) into `theta` (resized to the model's n_params). Fails
/// with exit code 1 and a message naming both hashes when the file belongs to
/// another model.
template <class T>
Status<AppError> load_parameters(const plastic_model& model, const std::string& where,
                                 std::vector<T>& theta);

extern template Status<AppError> load_parameters<float>(const plastic_model&, const std::string&,
                                                        std::vector<float>&);
extern template Status<AppError> load_parameters<double>(const plastic_model&, const std::string&,
                                                         std::vector<double>&);

} // namespace plastic::rt
