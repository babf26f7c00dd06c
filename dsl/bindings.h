// What name resolution needs beyond the checked model's tables.
//
// Layer instances with their arguments and members, the model's fns, and
// the names whose declarations had errors are the checker's bookkeeping:
// the evaluator resolves names through them, and the compiler, which gets
// expressions already resolved (resolved.h), never sees them.
//
// Internal header of dsl/: the checker, the evaluator and constant folding
// use it.
#pragma once

#include "dsl/ast.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace plastic::dsl {

/// A layer instance: `param ff : ffn[80, 320]`; nested instances inside.
struct LayerInstance {
  std::string path; ///< qualified name, "ff" or "ff.norm"
  const LayerDecl* def = nullptr;
  std::map<std::string, double> dims; ///< the layer's arguments
  std::map<std::string, int> params;  ///< member name -> index in CheckedModel::params
  std::map<std::string, const LayerInstance*> layers; ///< member name -> nested instance
};

/// The checker's name tables besides CheckedModel's.
struct Bindings {
  std::vector<std::unique_ptr<LayerInstance>> layers;     ///< every instance, nested ones included
  std::map<std::string, const LayerInstance*> top_layers; ///< model-level instances by name
  std::map<std::string, const FnDecl*> fns;
  /// Names whose declarations had errors: later uses are not reported again,
  /// so one mistake gives one error, not a cascade.
  std::set<std::string> broken;
};

} // namespace plastic::dsl
