// The built-in function table (see builtins.h).
#include "dsl/builtins.h"

#include "dsl/diagnostics.h"

#include <algorithm>

namespace plastic::dsl {

static const std::vector<BuiltinSpec>& table() {
  static const std::vector<BuiltinSpec> specs = [] {
    std::vector<BuiltinSpec> v = {
#define X(id, name, sig) {Builtin::id, name, sig, {}, {}, 0, false},
        PLASTIC_BUILTINS(X)
#undef X
    };
    for (BuiltinSpec& s : v) {
      if (s.id == Builtin::Softmax || s.id == Builtin::LogSumExp || s.id == Builtin::Concat)
        s.options = {{"axis", -1, true}};
      if (s.id == Builtin::LayerNorm) s.options = {{"eps", 1e-5, false}};
      if (s.id == Builtin::BceWithLogits) s.options = {{"pos_weight", 1, false}};
      if (s.id == Builtin::Sum || s.id == Builtin::Mean || s.id == Builtin::Max)
        s.options = {{"axis", 0, true}};
      std::string_view sig = s.signature;
      for (char c : sig)
        if (c != '?' && c != '*') s.kinds += c;
      s.variadic = !sig.empty() && sig.back() == '*';
      s.required = s.variadic ? s.kinds.size() : std::min(sig.find('?'), sig.size());
    }
    return v;
  }();
  return specs;
}

const BuiltinSpec* find_builtin(std::string_view name) {
  for (const BuiltinSpec& s : table())
    if (s.name == name) return &s;
  return nullptr;
}

const BuiltinSpec& builtin_spec(Builtin id) {
  const BuiltinSpec& s = table()[static_cast<size_t>(id)];
  if (s.id != id) throw InternalError("builtin table out of order");
  return s;
}

std::vector<std::string> builtin_names() {
  std::vector<std::string> names;
  for (const BuiltinSpec& s : table())
    names.emplace_back(s.name);
  return names;
}

bool is_loss_builtin(Builtin id) {
  return id == Builtin::CrossEntropy || id == Builtin::BceWithLogits || id == Builtin::Mse;
}

bool is_elementwise_unary(Builtin id) {
  switch (id) {
  case Builtin::Tanh:
  case Builtin::Sigmoid:
  case Builtin::Relu:
  case Builtin::Elu:
  case Builtin::Softplus:
  case Builtin::Exp:
  case Builtin::Log:
  case Builtin::Sqrt:
  case Builtin::Abs:
  case Builtin::Square:
    return true;
  default:
    return false;
  }
}

} // namespace plastic::dsl
