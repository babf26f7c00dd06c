// A fingerprint of the files a --data argument names, so that `train
// --resume` can tell the data set a run was trained on from another one.
//
// It has two parts: a digest of every regular file's relative path, size
// and modification time (cheap: one stat per file), and a digest of their
// paths and contents. The run records both; a later check that finds the
// same stat digest trusts it without reading a byte, and only when a file
// was touched, copied or replaced reads the contents to decide — so a big
// folder costs one full read when training starts, and a copy of the same
// data in another place still counts as the same data. Synthetic data has
// no files: its spec alone says what it is.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/app/app_error.h"

namespace plastic::rt {

struct DataFingerprint {
  int64_t files = 0;          ///< regular files under the path
  int64_t bytes = 0;          ///< their total size
  std::string stat_digest;    ///< paths, sizes and modification times
  std::string content_digest; ///< paths and contents

  bool empty() const { return files == 0 && content_digest.empty(); }
};

/// The fingerprint of `spec` (a file, or a folder and everything under it;
/// empty for synthetic data). Reads every file once.
Result<DataFingerprint, AppError> fingerprint_data(const std::string& spec);

/// Whether `spec` still holds the data `recorded` describes: equal stat
/// digests suffice, otherwise the contents are read and compared.
Result<bool, AppError> same_data(const std::string& spec, const DataFingerprint& recorded);

nlohmann::json fingerprint_json(const DataFingerprint& f);
DataFingerprint fingerprint_from_json(const nlohmann::json& j); ///< tolerant: missing = empty

} // namespace plastic::rt
