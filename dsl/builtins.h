// The built-in functions of the language, as one table.
//
// Each entry names a function, the kinds of its positional arguments and its
// named options with their defaults. The evaluator validates calls against
// the table (counts, constant arguments, option names) before any domain —
// the shape checker or the compiler's lowering — sees them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plastic::dsl {

// One row per family reads better than the formatter's packing.
// clang-format off
#define PLASTIC_BUILTINS(X)                                                                       \
  X(Tanh, "tanh", "t") X(Sigmoid, "sigmoid", "t") X(Relu, "relu", "t") X(Elu, "elu", "t")         \
  X(Softplus, "softplus", "t") X(Exp, "exp", "t") X(Log, "log", "t") X(Sqrt, "sqrt", "t")         \
  X(Abs, "abs", "t") X(Square, "square", "t")                                                     \
  X(Softmax, "softmax", "t") X(LogSumExp, "logsumexp", "t") X(LayerNorm, "layernorm", "t")        \
  X(Outer, "outer", "tt") X(Transpose, "transpose", "t")                                          \
  X(Sum, "sum", "t?i") X(Mean, "mean", "t?i") X(Max, "max", "t?i")                                \
  X(Reshape, "reshape", "tl") X(Concat, "concat", "t*") X(Einsum, "einsum", "s*")                 \
  X(Minimum, "minimum", "tt") X(Maximum, "maximum", "tt")                                         \
  X(CrossEntropy, "cross_entropy", "tt") X(BceWithLogits, "bce_with_logits", "tt")                \
  X(Mse, "mse", "tt")
// clang-format on

enum class Builtin {
#define X(id, name, sig) id,
  PLASTIC_BUILTINS(X)
#undef X
};

/// A named option of a builtin (`axis = -1`, `eps = 1e-5`).
struct BuiltinOption {
  std::string_view name;
  double default_value;
  bool integer;
};

struct BuiltinSpec {
  Builtin id;
  std::string_view name;
  /// Positional argument kinds: t tensor, i integer constant, l list of
  /// integer constants, s string; `?` makes the rest optional, a trailing `*`
  /// repeats the previous kind (at least one).
  std::string_view signature;
  std::vector<BuiltinOption> options;
  // The signature parsed once, when the table is built:
  std::string kinds;     ///< the argument kinds without `?` and `*`
  size_t required = 0;   ///< positional arguments that must be given
  bool variadic = false; ///< a trailing `*`: any number beyond `required`
};

const BuiltinSpec* find_builtin(std::string_view name);
const BuiltinSpec& builtin_spec(Builtin id);
std::vector<std::string> builtin_names();
bool is_loss_builtin(Builtin id);
bool is_elementwise_unary(Builtin id);

/// Constant arguments of one call, already evaluated by the evaluator.
struct BuiltinConsts {
  std::optional<int64_t> axis; ///< sum/mean/max's optional axis; softmax etc.: `axis` option
  double eps = 1e-5;           ///< layernorm
  /// bce_with_logits: the weight of the positive class's term (PyTorch's
  /// BCEWithLogitsLoss(pos_weight=)), > 0; 1 leaves the plain loss.
  double pos_weight = 1;
  std::vector<int64_t> shape; ///< reshape
  std::string spec;           ///< einsum
};

} // namespace plastic::dsl
