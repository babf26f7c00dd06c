// Constant expressions: numbers, dims and consts folded to a value.
//
// Shapes, layer arguments, indices and slice bounds, axes, initializer
// arguments, solver options and the exponent of `^` are constant
// expressions. Folding them needs no Domain, so it lives here once, compiled
// once, rather than inside the Evaluator template (evaluator.h), which calls
// it for the constant parts of an expression.
//
// Internal header of dsl/: the checker and the evaluator use it.
#pragma once

#include "dsl/bindings.h"
#include "dsl/diagnostics.h"
#include "dsl/model.h"
#include "dsl/symbols.h"

#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace plastic::dsl {

/// Which declarations an evaluation touched (for "is never used" warnings):
/// one set per kind of declaration, keyed by its index in CheckedModel's
/// tables (dims, inputs, params, states, outputs) or by its declaration.
struct Uses {
  std::set<int> params, dims, inputs, states, outputs;
  std::set<const FnDecl*> fns;           ///< model-level fns
  std::set<const LayerInstance*> layers; ///< model-level layer instances
  /// Where each name was used and what it resolved to, for editors; null
  /// unless the check was asked for it (CheckOptions::symbols).
  SymbolIndex* index = nullptr;

  /// Records a use of `symbol` at `at` in the index, if there is one.
  void note(Span at, Symbol symbol) const {
    if (index) index->use(at, index->define(std::move(symbol)));
  }
};

/// β(d, depth), the depth-`depth` log-signature dimension of a d-channel
/// path (runtime/support/witt.h); 0 outside d >= 1, 1 <= depth <= 16, so a
/// nonsense `logsig_dim(...)` folds to an invalid dimension, not a crash.
int64_t logsig_dimension(int64_t d, int64_t depth);

/// Folds constant expressions against a model's dims (inside a layer: that
/// instance's arguments), reporting what is not constant.
class ConstantEvaluator {
public:
  /// `bindings.broken` names declarations whose errors were already
  /// reported; a use of one is not reported again.
  ConstantEvaluator(const CheckedModel& model, const Bindings& bindings, DiagnosticEngine& diag,
                    Uses* uses)
      : model_(model), bindings_(bindings), diag_(diag), uses_(uses) {}

  /// The value of the dim or const `name` (in a layer: of its argument), or
  /// nothing if there is none; reports nothing.
  std::optional<double> dim(const std::string& name, const LayerInstance* layer);
  /// Folds `e`: numbers, dims, consts, + - * / ^ and logsig_dim(d, depth).
  std::optional<double> eval(const Expr& e, const LayerInstance* layer);
  /// Folds `e` and requires an integer; `what` names it in the error.
  std::optional<int64_t> integer(const Expr& e, const LayerInstance* layer, std::string_view what);
  /// Records the dims `e` names as used without folding it, reporting
  /// nothing: the expression of a dim that --set replaced still says which
  /// dims the model ties together.
  void note_uses(const Expr& e);

private:
  /// Records the use of a dim (or a layer's argument) in the symbol index.
  void note_dim(const Expr& e, const LayerInstance* layer);

  const CheckedModel& model_;
  const Bindings& bindings_;
  DiagnosticEngine& diag_;
  Uses* uses_;
};

} // namespace plastic::dsl
