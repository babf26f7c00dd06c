// The parameters' norm penalty (see norm_penalty.h).
#include "runtime/train/norm_penalty.h"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runtime/support/comma_list.h"
#include "runtime/train/clip.h"

namespace plastic::rt {

namespace {

// "f" selects "f" itself and everything under "f.".
bool selects(std::string_view name, std::string_view tensor) {
  return tensor == name ||
         (tensor.size() > name.size() && tensor.starts_with(name) && tensor[name.size()] == '.');
}

// The names of --norm-penalty-on; empty items (a trailing comma) name nothing.
std::vector<std::string_view> split_names(std::string_view names) {
  std::vector<std::string_view> out;
  for (std::string_view one : split_comma_list(names))
    if (!one.empty()) out.push_back(one);
  return out;
}

// The layers and tensors a user can name: each tensor's first component.
std::vector<std::string> top_level_names(const ParamTable& table) {
  std::vector<std::string> out;
  for (const ParamTensor& t : table.tensors()) {
    std::string head = t.name.substr(0, t.name.find('.'));
    if (out.empty() || out.back() != head) out.push_back(std::move(head));
  }
  return out;
}

} // namespace

Result<NormPenalty, TrainError> norm_penalty_over(const ParamTable& table, double weight,
                                                  std::string_view names) {
  if (!std::isfinite(weight) || weight < 0)
    return invalid_argument_error(
        fmt::format("the norm penalty must be a finite number >= 0, not {}", weight));
  NormPenalty penalty{.weight = weight, .groups = {}};
  const std::vector<std::string_view> wanted = split_names(names);
  for (std::string_view name : wanted) {
    bool any = false;
    for (const ParamTensor& t : table.tensors())
      any = any || selects(name, t.name);
    if (!any)
      return invalid_argument_error(
          fmt::format("the norm penalty's '{}' names no parameter of the model", name),
          fmt::format("name a parameter or a layer: {}", fmt::join(top_level_names(table), ", ")));
  }
  for (const ParamTensor& t : table.tensors()) {
    bool chosen = wanted.empty();
    for (std::string_view name : wanted)
      chosen = chosen || selects(name, t.name);
    if (chosen && t.size() > 0) penalty.groups.push_back({t.offset, t.size()});
  }
  return penalty;
}

template <class T>
double add_norm_penalty(const NormPenalty& penalty, std::span<const T> params, std::span<T> grads) {
  if (!penalty.active()) return 0;
  double total = 0;
  for (const ParamRange& g : penalty.groups) {
    const auto offset = static_cast<size_t>(g.offset), size = static_cast<size_t>(g.size);
    const double norm = grad_norm<T>(params.subspan(offset, size));
    total += norm;
    if (!(norm > 0) || !std::isfinite(norm)) continue; // torch: zero gradient at θ = 0
    const double scale = penalty.weight / norm;
    for (size_t i = offset; i < offset + size; ++i)
      grads[i] += static_cast<T>(scale * static_cast<double>(params[i]));
  }
  return penalty.weight * total;
}

template double add_norm_penalty<float>(const NormPenalty&, std::span<const float>,
                                        std::span<float>);
template double add_norm_penalty<double>(const NormPenalty&, std::span<const double>,
                                         std::span<double>);

} // namespace plastic::rt
