// Parameters and optimiser state <-> named tensors (layout in state_tensors.h).
#include "runtime/train/state_tensors.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace plastic::rt {

namespace {
/// The parameter name a tensor name stands for under `prefix`, or empty.
std::string_view owned_name(std::string_view name, std::string_view prefix) {
  if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) return {};
  const std::string_view rest = name.substr(prefix.size());
  return rest.find('/') == std::string_view::npos ? rest : std::string_view{};
}

/// The first element of `values` that is NaN or infinite, as "[i,j] (element k) is nan";
/// empty when all are finite. A non-finite parameter is never a trained
/// value: it would silently poison every prediction (ReLU turns NaN into 0,
/// and a metric can still look normal).
template <class T>
std::string first_non_finite(std::span<const T> values, const std::vector<int64_t>& shape) {
  for (size_t k = 0; k < values.size(); ++k) {
    if (std::isfinite(values[k])) continue;
    std::vector<int64_t> index(shape.size());
    int64_t rest = static_cast<int64_t>(k);
    for (size_t d = shape.size(); d-- > 0;) {
      index[d] = shape[d] > 0 ? rest % shape[d] : 0;
      rest = shape[d] > 0 ? rest / shape[d] : 0;
    }
    return fmt::format("[{}] (element {}) is {}", fmt::join(index, ","), k, values[k]);
  }
  return {};
}
} // namespace

bool has_prefix(const SafetensorsFile& tensors, std::string_view prefix) {
  return std::any_of(tensors.tensors.begin(), tensors.tensors.end(),
                     [&](const NamedTensor& t) { return !owned_name(t.name, prefix).empty(); });
}

template <class T>
Result<std::vector<NamedTensor>, TrainError>
params_to_tensors(const ParamTable& table, std::span<const T> theta, std::string_view prefix) {
  if (static_cast<int64_t>(theta.size()) != table.total())
    return invalid_argument_error(fmt::format("theta has {} elements but the parameter table {}",
                                              theta.size(), table.total()));
  std::vector<NamedTensor> out;
  for (const ParamTensor& p : table.tensors()) {
    const std::string bad = first_non_finite<T>(theta.subspan(p.offset, p.size()), p.shape);
    if (!bad.empty())
      return invalid_argument_error(
          fmt::format("parameter '{}{}' {}: non-finite values are never saved", prefix, p.name,
                      bad),
          "training diverged; lower the learning rate or clip gradients (--clip)");
    out.push_back(NamedTensor::of<T>(std::string(prefix) + p.name, p.shape,
                                     theta.subspan(p.offset, p.size())));
  }
  return out;
}

template <class T>
Status<TrainError> params_from_tensors(const ParamTable& table, const SafetensorsFile& tensors,
                                       std::span<T> theta, std::string_view prefix,
                                       const std::string& file) {
  if (static_cast<int64_t>(theta.size()) != table.total())
    return invalid_argument_error(fmt::format("theta has {} elements but the parameter table {}",
                                              theta.size(), table.total()));
  for (const NamedTensor& t : tensors.tensors) {
    const std::string_view name = owned_name(t.name, prefix);
    if (!name.empty() && !table.find(name))
      return mismatch_error(
          file, fmt::format("the checkpoint has a parameter '{}' that the model does not", name),
          "the checkpoint was saved by a different model");
  }
  // Check everything before writing anything, so a failed load leaves theta as it was.
  std::vector<std::pair<const ParamTensor*, const NamedTensor*>> plan;
  for (const ParamTensor& p : table.tensors()) {
    const NamedTensor* t = tensors.find(std::string(prefix) + p.name);
    if (!t)
      return mismatch_error(file,
                            fmt::format("the checkpoint has no parameter '{}{}'", prefix, p.name),
                            "the checkpoint was saved by a different model");
    if (t->shape != p.shape)
      return mismatch_error(
          file,
          fmt::format("parameter '{}' has shape {} in the checkpoint but {} in the model", p.name,
                      shape_string(t->shape), shape_string(p.shape)),
          "dims changed since the checkpoint was saved");
    if (t->dtype != dtype_of<T>())
      return mismatch_error(
          file,
          fmt::format("parameter '{}' is {} in the checkpoint but the model uses {}", p.name,
                      dtype_name(t->dtype), dtype_name(dtype_of<T>())),
          "resume with the element type the checkpoint was trained with");
    std::vector<T> values(static_cast<size_t>(p.size()));
    if (!t->bytes.empty()) std::memcpy(values.data(), t->bytes.data(), t->bytes.size());
    const std::string bad = first_non_finite<T>(values, p.shape);
    if (!bad.empty())
      return format_error(
          file, fmt::format("tensor '{}{}' {}: parameters must be finite", prefix, p.name, bad));
    plan.emplace_back(&p, t);
  }
  for (const auto& [p, t] : plan)
    if (!t->bytes.empty()) std::memcpy(theta.data() + p->offset, t->bytes.data(), t->bytes.size());
  return {};
}

template <class T>
Result<SafetensorsFile, TrainError> optimizer_to_file(const ParamTable& table,
                                                      const OptimizerState<T>& state) {
  SafetensorsFile f;
  f.metadata["optimizer"] = state.kind;
  f.metadata["hyper"] = state.hyper.dump();
  const int64_t step = state.step;
  f.tensors.push_back(NamedTensor::of<int64_t>("step", {}, std::span<const int64_t>(&step, 1)));
  for (const auto& [buffer, values] : state.buffers) {
    Result<std::vector<NamedTensor>, TrainError> parts =
        params_to_tensors<T>(table, values, buffer + "/");
    if (!parts) return parts.error();
    for (NamedTensor& t : parts.value())
      f.tensors.push_back(std::move(t));
  }
  return f;
}

template <class T>
Result<OptimizerState<T>, TrainError> optimizer_from_file(const ParamTable& table,
                                                          const SafetensorsFile& tensors,
                                                          const std::string& file) {
  OptimizerState<T> s;
  auto kind = tensors.metadata.find("optimizer");
  auto hyper = tensors.metadata.find("hyper");
  if (kind == tensors.metadata.end() || hyper == tensors.metadata.end())
    return format_error(file, "optimizer state lacks the 'optimizer' and 'hyper' metadata");
  s.kind = kind->second;
  s.hyper = nlohmann::json::parse(hyper->second, nullptr, /*allow_exceptions=*/false);
  if (s.hyper.is_discarded() || !s.hyper.is_object())
    return format_error(file, "optimizer metadata 'hyper' is not a JSON object");
  const NamedTensor* step = tensors.find("step");
  if (!step || step->dtype != DType::I64 || !step->shape.empty())
    return format_error(file, "optimizer state lacks the I64 scalar 'step'");
  std::memcpy(&s.step, step->bytes.data(), sizeof(int64_t));
  // Buffer names are the parts before '/'; each must cover the whole table.
  std::set<std::string> buffers;
  for (const NamedTensor& t : tensors.tensors) {
    const size_t slash = t.name.find('/');
    if (slash != std::string::npos)
      buffers.insert(t.name.substr(0, slash));
    else if (t.name != "step")
      return format_error(file, fmt::format("unexpected tensor '{}' in optimizer state", t.name));
  }
  for (const std::string& b : buffers) {
    std::vector<T> values(table.total());
    if (Status<TrainError> st = params_from_tensors<T>(table, tensors, values, b + "/", file); !st)
      return st.error();
    s.buffers.emplace_back(b, std::move(values));
  }
  return s;
}

#define PLASTIC_STATE_TENSORS_INSTANTIATE(T)                                                       \
  template Result<std::vector<NamedTensor>, TrainError> params_to_tensors<T>(                      \
      const ParamTable&, std::span<const T>, std::string_view);                                    \
  template Status<TrainError> params_from_tensors<T>(const ParamTable&, const SafetensorsFile&,    \
                                                     std::span<T>, std::string_view,               \
                                                     const std::string&);                          \
  template Result<SafetensorsFile, TrainError> optimizer_to_file<T>(const ParamTable&,             \
                                                                    const OptimizerState<T>&);     \
  template Result<OptimizerState<T>, TrainError> optimizer_from_file<T>(                           \
      const ParamTable&, const SafetensorsFile&, const std::string&);
PLASTIC_STATE_TENSORS_INSTANTIATE(float)
PLASTIC_STATE_TENSORS_INSTANTIATE(double)
#undef PLASTIC_STATE_TENSORS_INSTANTIATE

} // namespace plastic::rt
