// Building and checking parameter tables.
#include "runtime/io/param_table.h"

#include <algorithm>
#include <limits>
#include <set>

#include <fmt/format.h>

namespace plastic::rt {

int64_t ParamTensor::size() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string shape_string(const std::vector<int64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

Result<ParamTable, TrainError> ParamTable::make(std::vector<ParamTensor> tensors, int64_t total) {
  if (total < 0)
    return invalid_argument_error(fmt::format("parameter count {} is negative", total));
  std::set<std::string_view> names;
  for (const ParamTensor& t : tensors) {
    if (t.name.empty()) return invalid_argument_error("a parameter tensor has an empty name");
    // '/' separates prefixes in checkpoints ("best/w", "exp_avg/w").
    if (t.name.find('/') != std::string::npos)
      return invalid_argument_error(fmt::format("parameter name '{}' contains '/'", t.name));
    if (!names.insert(t.name).second)
      return invalid_argument_error(
          fmt::format("parameter '{}' appears twice in the table", t.name));
    // Sizes are products of dims; check each factor so a hostile table cannot overflow.
    int64_t n = 1;
    for (int64_t d : t.shape) {
      if (d < 0)
        return invalid_argument_error(
            fmt::format("parameter '{}' has shape {}", t.name, shape_string(t.shape)));
      if (d != 0 && n > std::numeric_limits<int64_t>::max() / d)
        return invalid_argument_error(fmt::format("parameter '{}' is too large", t.name));
      n *= d;
    }
    if (t.offset < 0 || t.offset > total || n > total - t.offset)
      return invalid_argument_error(
          fmt::format("parameter '{}' (offset {}, {} elements) lies outside theta of {} elements",
                      t.name, t.offset, n, total));
  }
  // Disjoint and covering: sorted by offset, each tensor starts where the previous ended.
  std::vector<const ParamTensor*> order;
  order.reserve(tensors.size());
  for (const ParamTensor& t : tensors)
    order.push_back(&t);
  std::stable_sort(order.begin(), order.end(), [](const ParamTensor* a, const ParamTensor* b) {
    return a->offset < b->offset;
  });
  int64_t next = 0;
  for (const ParamTensor* t : order) {
    if (t->offset < next)
      return invalid_argument_error(
          fmt::format("parameter '{}' overlaps the previous tensor (offset {} < {})", t->name,
                      t->offset, next));
    if (t->offset > next && t->size() > 0)
      return invalid_argument_error(
          fmt::format("elements [{}, {}) of theta belong to no parameter tensor", next, t->offset));
    next = std::max(next, t->offset + t->size());
  }
  if (next != total)
    return invalid_argument_error(
        fmt::format("elements [{}, {}) of theta belong to no parameter tensor", next, total));
  ParamTable table;
  table.tensors_ = std::move(tensors);
  table.total_ = total;
  return table;
}

Result<ParamTable, TrainError> ParamTable::from_abi(const plastic_param* params, int32_t count,
                                                    int64_t n_params) {
  if (count < 0 || (count > 0 && !params))
    return invalid_argument_error("the model's parameter table is missing");
  std::vector<ParamTensor> tensors;
  for (int32_t i = 0; i < count; ++i) {
    const plastic_param& p = params[i];
    if (p.rank < 0 || p.rank > PLASTIC_MAX_RANK)
      return invalid_argument_error(fmt::format("parameter {} has rank {}", i, p.rank));
    ParamTensor t;
    t.name = p.name ? p.name : "";
    t.shape.assign(p.shape, p.shape + p.rank);
    t.offset = p.offset;
    tensors.push_back(std::move(t));
  }
  // make() checks the dims first, so the sizes below cannot overflow.
  Result<ParamTable, TrainError> table = make(std::move(tensors), n_params);
  if (!table) return table;
  for (int32_t i = 0; i < count; ++i) {
    const ParamTensor& t = table.value().tensors()[i];
    if (t.size() != params[i].size)
      return invalid_argument_error(
          fmt::format("parameter '{}' declares size {} but its shape {} has {} elements", t.name,
                      params[i].size, shape_string(t.shape), t.size()));
  }
  return table;
}

int64_t ParamTable::append(std::string name, std::vector<int64_t> shape) {
  ParamTensor t{std::move(name), std::move(shape), total_};
  total_ += t.size();
  tensors_.push_back(std::move(t));
  return tensors_.back().offset;
}

const ParamTensor* ParamTable::find(std::string_view name) const {
  for (const ParamTensor& t : tensors_)
    if (t.name == name) return &t;
  return nullptr;
}

} // namespace plastic::rt
