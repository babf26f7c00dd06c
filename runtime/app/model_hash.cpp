// Fingerprint of a model table (see model_hash.h).
#include "runtime/app/model_hash.h"

#include <fmt/format.h>

namespace plastic::rt {

std::string model_hash(const plastic_model& m) {
  std::string text = fmt::format("{}|{}|{}|{}|{}|{}|{}", m.name ? m.name : "", m.dtype, m.n_state,
                                 m.n_params, m.n_input, m.n_outputs, m.n_targets);
  for (int32_t i = 0; i < m.n_param_entries; ++i) {
    const plastic_param& p = m.params[i];
    text += fmt::format("|{}:{}", p.name ? p.name : "", p.offset);
    for (int32_t d = 0; d < p.rank; ++d)
      text += fmt::format(",{}", p.shape[d]);
  }
  return fmt::format("{}-{}", m.name ? m.name : "model", text_digest(text));
}

std::string text_digest(const std::string& text) {
  uint64_t h = 1469598103934665603ull; // FNV-1a, 64 bit
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

} // namespace plastic::rt
