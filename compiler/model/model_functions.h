// A model file taken through the front end and lowered to IR, with the
// derived functions the runtime needs (field VJP, adjoint system, the fused
// step of the model's solver and its VJP), optimised by the standard pass
// pipeline. Shared by `plastic emit`, `plastic gradcheck` and the model
// assembler that compiles these functions into kernels.
#pragma once

#include "compiler/autodiff/ode.h"
#include "compiler/irgen/model_to_ir.h"
#include "dsl/frontend.h"

#include <functional>
#include <map>
#include <string>
#include <memory>
#include <optional>

namespace plastic::model {

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
  /// Per entry pair of `steps`: the step's stage nodes and input naming
  /// (its fn is the unoptimised step; use steps[2*i].fn).
  std::vector<ad::RkStep> step_info;
  /// Per step whose field reads static inputs: "step.<method>.vjp.static",
  /// the step's VJP with respect to those statics (build_step_vjp leaves
  /// them out; the model ABI's step_vjp returns their cotangent too).
  std::vector<NamedFunction> step_static_vjps;
  /// Pairs (function, its VJP) to check by finite differences.
  std::vector<std::pair<const ir::Function*, const ir::Function*>> vjp_pairs;
};

struct BuildOptions {
  std::map<std::string, double> overrides;  ///< --set name=value
  bool color = false;                       ///< colour diagnostics
  /// Sees every function after every optimisation pass (may be empty).
  std::function<void(std::string_view, const ir::Function&)> after_pass;
};

/// Why a build failed: the model has errors, or an override names nothing.
enum class BuildStatus { Ok, InputError, UsageError };

/// Checks and lowers `file`; diagnostics go to stderr. On failure returns
/// nullopt and says why in `status`.
std::optional<ModelFunctions> build_model_functions(const std::string& file,
                                                    const BuildOptions& options,
                                                    BuildStatus& status);

/// Nodes reachable from a function's outputs.
size_t node_count(const ir::Function& f);

}  // namespace plastic::model
