// A short fingerprint of a compiled model's interface: its name, element
// type, sizes and parameter table (names, shapes, offsets). Checkpoints
// record it and --resume / eval refuse parameters of a different model, so
// a run folder cannot silently be continued with an edited model.
#pragma once

#include <string>

#include "runtime/abi.h"

namespace plastic::rt {

/// "delta_cde-3f2a9c0d1b2e4f56": the model name and 64 bits of FNV-1a.
std::string model_hash(const plastic_model& model);

/// 64 bits of FNV-1a of `text` as 16 hex digits: the digest of a model's
/// text, its identity (run_record.h) and a search's model (plastic tune).
std::string text_digest(const std::string& text);

} // namespace plastic::rt
