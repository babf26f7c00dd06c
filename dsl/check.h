// The checker: from parsed modules to a CheckedModel.
//
// Resolves names, evaluates dims (with command-line overrides), instantiates
// layers, flattens parameters, infers a shape for every expression, checks
// flows against their states, validates outputs, the loss, the solver and
// the gradient method, and warns about unused declarations.
#pragma once

#include "dsl/diagnostics.h"
#include "dsl/model.h"
#include "dsl/symbols.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace plastic::dsl {

struct CheckOptions {
  std::map<std::string, double> overrides; ///< --set name=value
  /// What the data at hand provide for `dim d from data.X`: "channels" (as
  /// read, without a time channel) and "classes", with `data_name` (the
  /// --data argument) for messages. Empty when the command has no data: then
  /// such a dim needs a --set.
  std::map<std::string, int64_t> data_quantities;
  std::string data_name;
  /// Filled with every declaration and every use of a name, for editors
  /// (plastic lsp); null when nobody asks.
  SymbolIndex* symbols = nullptr;
};

struct CheckResult {
  std::unique_ptr<CheckedModel> model; ///< null if there were errors
  bool usage_error = false;            ///< an override named nothing in the model
};

/// The solvers `solve` accepts (fixed-step first, then adaptive) and the
/// methods `gradient` accepts: for completion and help in the REPL.
std::vector<std::string> solver_names();
std::vector<std::string> gradient_methods();
/// The initializers `init` accepts, and the layer types a `param` may
/// instantiate (the prelude's and `mlp`): for editors' completion.
std::vector<std::string> initializer_names();
std::vector<std::string> layer_type_names();

/// Checks `model` against the prelude. The checked model takes ownership of
/// both modules (its expressions point into them).
CheckResult check(std::unique_ptr<Module> prelude, std::unique_ptr<Module> model,
                  const CheckOptions& options, DiagnosticEngine& diag);

} // namespace plastic::dsl
