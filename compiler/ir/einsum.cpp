// Einsum specifications of `contract` (see einsum.h).
#include "compiler/ir/einsum.h"

#include <algorithm>

#include <fmt/format.h>

#include "compiler/ir/error.h"

namespace plastic::ir {
namespace {

int label_of(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return 26 + (c - 'A');
  return -1;
}

} // namespace

char einsum_letter(int label) {
  PLASTIC_CHECK(label >= 0 && label < 52, "einsum label {} out of range", label);
  return label < 26 ? static_cast<char>('a' + label) : static_cast<char>('A' + label - 26);
}

EinsumSpec EinsumSpec::parse(std::string_view text) {
  EinsumSpec spec;
  size_t arrow = text.find("->");
  if (arrow == std::string_view::npos)
    throw IRError(fmt::format("einsum spec '{}' has no '->'", text));
  auto labels = [&](std::string_view part) {
    std::vector<int> out;
    for (char c : part) {
      int l = label_of(c);
      if (l < 0) throw IRError(fmt::format("einsum spec '{}': bad label '{}'", text, c));
      if (std::find(out.begin(), out.end(), l) != out.end())
        throw IRError(fmt::format("einsum spec '{}': label '{}' repeats in one operand (no "
                                  "diagonals)",
                                  text, c));
      out.push_back(l);
    }
    return out;
  };
  std::string_view lhs = text.substr(0, arrow);
  size_t start = 0;
  while (true) {
    size_t comma = lhs.find(',', start);
    spec.inputs.push_back(labels(lhs.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  spec.output = labels(text.substr(arrow + 2));
  for (int l : spec.output) {
    bool found = false;
    for (const auto& in : spec.inputs)
      found = found || std::find(in.begin(), in.end(), l) != in.end();
    if (!found)
      throw IRError(fmt::format("einsum spec '{}': output label '{}' is in no operand", text,
                                einsum_letter(l)));
  }
  return spec;
}

std::string EinsumSpec::str() const {
  std::string s;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i) s += ',';
    for (int l : inputs[i])
      s += einsum_letter(l);
  }
  s += "->";
  for (int l : output)
    s += einsum_letter(l);
  return s;
}

EinsumSpec EinsumSpec::canonical() const {
  std::vector<int> rename(static_cast<size_t>(label_bound()), -1);
  int next = 0;
  auto map = [&](const std::vector<int>& ls) {
    std::vector<int> out;
    for (int l : ls) {
      if (rename[static_cast<size_t>(l)] < 0) rename[static_cast<size_t>(l)] = next++;
      out.push_back(rename[static_cast<size_t>(l)]);
    }
    return out;
  };
  EinsumSpec c;
  for (const auto& in : inputs)
    c.inputs.push_back(map(in));
  c.output = map(output);
  return c;
}

int EinsumSpec::label_bound() const {
  int m = 0;
  for (const auto& in : inputs)
    for (int l : in)
      m = std::max(m, l + 1);
  for (int l : output)
    m = std::max(m, l + 1);
  return m;
}

std::string check_einsum(const EinsumSpec& spec, std::span<const Shape* const> shapes,
                         std::vector<int64_t>& label_size) {
  if (spec.inputs.size() != shapes.size())
    return fmt::format("spec '{}' has {} operands but {} were given", spec.str(),
                       spec.inputs.size(), shapes.size());
  label_size.assign(static_cast<size_t>(spec.label_bound()), -1);
  for (size_t i = 0; i < shapes.size(); ++i) {
    const Shape& s = *shapes[i];
    if (s.size() != spec.inputs[i].size())
      return fmt::format("operand {} of '{}' has shape {} but {} labels", i, spec.str(),
                         shape_str(s), spec.inputs[i].size());
    for (size_t k = 0; k < s.size(); ++k) {
      int64_t& size = label_size[static_cast<size_t>(spec.inputs[i][k])];
      if (size >= 0 && size != s[k])
        return fmt::format("shapes do not contract in '{}': label '{}' is {} in one operand and "
                           "{} in operand {} (shape {})",
                           spec.str(), einsum_letter(spec.inputs[i][k]), size, s[k], i,
                           shape_str(s));
      size = s[k];
    }
  }
  for (int l : spec.output)
    if (label_size[static_cast<size_t>(l)] < 0)
      return fmt::format("output label '{}' of '{}' is in no operand", einsum_letter(l),
                         spec.str());
  return "";
}

} // namespace plastic::ir
