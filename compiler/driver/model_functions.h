// A model file taken through the front end and lowered to IR, with the
// derived functions the runtime needs (field VJP, adjoint system, the fused
// step of the model's solver and its VJP), optimised by the standard pass
// pipeline. Shared by `plastic emit` and `plastic gradcheck`.
#pragma once

#include "compiler/driver/commands.h"
#include "compiler/lower/lower_model.h"
#include "dsl/frontend.h"

#include <functional>
#include <memory>
#include <optional>

namespace plastic::driver {

struct NamedFunction {
  std::string role;  ///< "field", "field.vjp", "step.rk4", ...
  ir::Function fn;
};

struct ModelFunctions {
  std::unique_ptr<dsl::CheckedModel> model;
  std::unique_ptr<ir::Context> ctx;  ///< owns every node of every function below
  std::vector<NamedFunction> primal;   ///< field, init, outputs, jump, loss
  std::vector<NamedFunction> derived;  ///< VJPs, adjoint system
  std::vector<NamedFunction> steps;    ///< fused solver steps and their VJPs
  /// Pairs (function, its VJP) to check by finite differences.
  std::vector<std::pair<const ir::Function*, const ir::Function*>> vjp_pairs;
};

/// Checks and lowers `file`; diagnostics go to stderr. `after_pass` (may be
/// empty) sees every function after every optimisation pass. Returns an exit
/// code in `code` when it fails.
std::optional<ModelFunctions> build_model_functions(
    const std::string& file, const CommonOptions& common, int& code,
    const std::function<void(std::string_view, const ir::Function&)>& after_pass = {});

/// Nodes reachable from a function's outputs.
size_t node_count(const ir::Function& f);

}  // namespace plastic::driver
