// Shape rules of the language's operators (see shape.h).
#include "dsl/shape.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>

namespace plastic::dsl {

std::string format_shape(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

int64_t element_count(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s)
    if (__builtin_mul_overflow(n, d, &n)) return std::numeric_limits<int64_t>::max();
  return n;
}

double element_count_real(const Shape& s) {
  double n = 1;
  for (int64_t d : s)
    n *= static_cast<double>(d);
  return n;
}

int64_t saturating_add(int64_t a, int64_t b) {
  int64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<int64_t>::max() : sum;
}

ShapeResult broadcast_shapes(const Shape& a, const Shape& b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return ShapeError{
          fmt::format("shapes {} and {} do not broadcast", format_shape(a), format_shape(b)),
          fmt::format("axis {} from the right: {} ≠ {} (dimensions must be equal or 1)", rank - i,
                      da, db)};
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// The batch dims of two operands broadcast like elementwise shapes.
static std::variant<Shape, ShapeError> batch_dims(const Shape& a, const Shape& b, const Shape& A,
                                                  const Shape& B) {
  ShapeResult r = broadcast_shapes(a, b);
  if (auto* e = std::get_if<ShapeError>(&r))
    return ShapeError{
        fmt::format("shapes {} and {} do not contract", format_shape(A), format_shape(B)),
        "their leading (batch) dimensions do not broadcast: " + e->hint};
  return std::get<Shape>(r);
}

ShapeResult matmul_shape(const Shape& a, const Shape& b) {
  auto mismatch = [&](int64_t x, int64_t y) {
    return ShapeError{
        fmt::format("shapes {} and {} do not contract", format_shape(a), format_shape(b)),
        fmt::format("{} @ {}: {} ≠ {}", format_shape(a), format_shape(b), x, y)};
  };
  if (a.empty() || b.empty())
    return ShapeError{
        fmt::format("shapes {} and {} do not contract", format_shape(a), format_shape(b)),
        "'@' needs vectors or matrices; use '*' to scale by a scalar"};
  if (a.size() == 1 && b.size() == 1) {
    if (a[0] != b[0]) return mismatch(a[0], b[0]);
    return Shape{};
  }
  if (a.size() == 1) { // vector · matrix: [n] @ [..., n, p]
    int64_t n = b[b.size() - 2];
    if (a[0] != n) return mismatch(a[0], n);
    Shape out(b.begin(), b.end() - 2);
    out.push_back(b.back());
    return out;
  }
  int64_t m = a[a.size() - 2], n = a.back();
  Shape abatch(a.begin(), a.end() - 2);
  if (b.size() < a.size()) { // batched matrix · vector: [..., m, n] @ [..., n]
    if (b.back() != n) return mismatch(n, b.back());
    Shape bbatch(b.begin(), b.end() - 1);
    auto batch = batch_dims(abatch, bbatch, a, b);
    if (auto* e = std::get_if<ShapeError>(&batch)) return *e;
    Shape out = std::get<Shape>(batch);
    out.push_back(m);
    return out;
  }
  if (b.size() == a.size()) { // batched matrix · matrix: [..., m, n] @ [..., n, p]
    int64_t bn = b[b.size() - 2];
    if (bn != n) return mismatch(n, bn);
    Shape bbatch(b.begin(), b.end() - 2);
    auto batch = batch_dims(abatch, bbatch, a, b);
    if (auto* e = std::get_if<ShapeError>(&batch)) return *e;
    Shape out = std::get<Shape>(batch);
    out.push_back(m);
    out.push_back(b.back());
    return out;
  }
  return ShapeError{
      fmt::format("shapes {} and {} do not contract", format_shape(a), format_shape(b)),
      "the right operand of '@' has more axes than the left; transpose, or use einsum"};
}

ShapeResult outer_shape(const Shape& a, const Shape& b) {
  if (a.empty() || b.empty())
    return ShapeError{
        fmt::format("outer needs vectors, got {} and {}", format_shape(a), format_shape(b)),
        "use '*' to scale by a scalar"};
  Shape abatch(a.begin(), a.end() - 1), bbatch(b.begin(), b.end() - 1);
  ShapeResult r = broadcast_shapes(abatch, bbatch);
  if (auto* e = std::get_if<ShapeError>(&r))
    return ShapeError{fmt::format("outer of {} and {}: leading dimensions do not broadcast",
                                  format_shape(a), format_shape(b)),
                      e->hint};
  Shape out = std::get<Shape>(r);
  out.push_back(a.back());
  out.push_back(b.back());
  return out;
}

ShapeResult transpose_shape(const Shape& x) {
  if (x.size() < 2)
    return ShapeError{fmt::format("transpose needs at least two axes, got {}", format_shape(x)),
                      ""};
  Shape out = x;
  std::swap(out[out.size() - 1], out[out.size() - 2]);
  return out;
}

std::optional<int> normalize_axis(int64_t axis, size_t rank) {
  int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) return std::nullopt;
  return static_cast<int>(axis < 0 ? axis + r : axis);
}

static ShapeError axis_error(int64_t axis, const Shape& x) {
  return ShapeError{fmt::format("axis {} is out of range for shape {}", axis, format_shape(x)),
                    x.empty() ? "a scalar has no axes"
                              : fmt::format("valid axes are {}..{} (or {}..-1)", 0, x.size() - 1,
                                            -static_cast<int64_t>(x.size()))};
}

ShapeResult reduce_shape(const Shape& x, std::optional<int64_t> axis) {
  if (!axis) return Shape{};
  auto a = normalize_axis(*axis, x.size());
  if (!a) return axis_error(*axis, x);
  Shape out = x;
  out.erase(out.begin() + *a);
  return out;
}

ShapeResult reshape_shape(const Shape& x, const Shape& target) {
  for (int64_t d : target)
    if (d <= 0)
      return ShapeError{
          fmt::format("cannot reshape to {}: dimensions must be positive", format_shape(target)),
          ""};
  if (element_count(x) != element_count(target))
    return ShapeError{fmt::format("cannot reshape {} ({} elements) to {} ({} elements)",
                                  format_shape(x), element_count(x), format_shape(target),
                                  element_count(target)),
                      ""};
  return target;
}

ShapeResult concat_shape(const std::vector<Shape>& parts, int64_t axis) {
  const Shape& first = parts.front();
  auto a = normalize_axis(axis, first.size());
  if (!a) return axis_error(axis, first);
  Shape out = first;
  for (size_t i = 1; i < parts.size(); ++i) {
    const Shape& p = parts[i];
    bool same = p.size() == first.size();
    for (size_t k = 0; same && k < p.size(); ++k)
      if (static_cast<int>(k) != *a && p[k] != first[k]) same = false;
    if (!same)
      return ShapeError{fmt::format("cannot concatenate {} and {} along axis {}",
                                    format_shape(first), format_shape(p), axis),
                        "all other dimensions must be equal"};
    out[*a] += p[*a];
  }
  return out;
}

ShapeResult einsum_shape(const std::string& spec, const std::vector<Shape>& operands) {
  auto arrow = spec.find("->");
  if (arrow == std::string::npos)
    return ShapeError{fmt::format("einsum spec \"{}\" has no '->'", spec),
                      "write it as \"ij,j->i\""};
  std::vector<std::string> inputs;
  std::string lhs = spec.substr(0, arrow), rhs = spec.substr(arrow + 2);
  size_t start = 0;
  while (true) {
    size_t comma = lhs.find(',', start);
    inputs.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (inputs.size() != operands.size())
    return ShapeError{fmt::format("einsum spec \"{}\" names {} operands but {} were given", spec,
                                  inputs.size(), operands.size()),
                      ""};
  std::map<char, int64_t> sizes;
  Shape ellipsis;
  bool has_ellipsis = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string labels = inputs[i];
    size_t dots = labels.find("...");
    size_t explicit_count = labels.size() - (dots == std::string::npos ? 0 : 3);
    const Shape& s = operands[i];
    if (s.size() < explicit_count || (dots == std::string::npos && s.size() != explicit_count))
      return ShapeError{fmt::format("einsum operand {} has shape {} but \"{}\" names {} axes",
                                    i + 1, format_shape(s), inputs[i], explicit_count),
                        ""};
    size_t extra = s.size() - explicit_count;
    if (dots != std::string::npos) {
      Shape mine(s.begin() + dots, s.begin() + dots + extra);
      ShapeResult r = broadcast_shapes(ellipsis, mine);
      if (auto* e = std::get_if<ShapeError>(&r)) return *e;
      ellipsis = std::get<Shape>(r);
      has_ellipsis = true;
      labels.erase(dots, 3);
    }
    for (size_t k = 0; k < labels.size(); ++k) {
      char c = labels[k];
      if (!std::isalpha(static_cast<unsigned char>(c)))
        return ShapeError{fmt::format("einsum spec \"{}\": '{}' is not an axis label", spec, c),
                          "labels are letters"};
      size_t axis = (dots != std::string::npos && k >= dots) ? k + extra : k;
      int64_t d = s[axis];
      auto [it, inserted] = sizes.emplace(c, d);
      if (!inserted && it->second != d)
        return ShapeError{
            fmt::format("einsum \"{}\": axis '{}' is {} in one operand and {} in another", spec, c,
                        it->second, d),
            ""};
    }
  }
  Shape out;
  std::string out_labels = rhs;
  size_t dots = out_labels.find("...");
  for (size_t k = 0; k < out_labels.size(); ++k) {
    if (dots != std::string::npos && k == dots) {
      out.insert(out.end(), ellipsis.begin(), ellipsis.end());
      k += 2;
      continue;
    }
    auto it = sizes.find(out_labels[k]);
    if (it == sizes.end())
      return ShapeError{
          fmt::format("einsum \"{}\": output axis '{}' is not an input axis", spec, out_labels[k]),
          ""};
    out.push_back(it->second);
  }
  if (has_ellipsis && dots == std::string::npos && !ellipsis.empty())
    return ShapeError{fmt::format("einsum \"{}\": inputs use '...' but the output does not", spec),
                      ""};
  return out;
}

} // namespace plastic::dsl
