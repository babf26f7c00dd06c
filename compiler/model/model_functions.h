// A model file taken through the front end and lowered to IR, with the
// derived functions the runtime needs (field VJP, adjoint system, the fused
// step of the model's solver and its VJP), optimised by the standard pass
// pipeline. Shared by `plastic emit`, `plastic gradcheck` and the model
// assembler that compiles these functions into kernels. Consumers find a
// function by its typed role (FnRole), never by its name or its position.
#pragma once

#include "compiler/autodiff/ode.h"
#include "compiler/irgen/model_to_ir.h"
#include "dsl/frontend.h"
#include "runtime/solvers/tableau.h"

#include <compare>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace plastic::model {

/// What a function of a model is for. Stages look functions up by this
/// key, never by their printed name.
enum class FnKind {
  // Primal functions, lowered from the model.
  Field,
  Init,
  FinalOutputs,
  ObservationOutputs,
  Jump,
  Loss,
  // Derived: the field's VJP and adjoint system, the VJP of each other primal.
  FieldVjp,
  AdjointSystem,
  InitVjp,
  FinalOutputsVjp,
  ObservationOutputsVjp,
  JumpVjp,
  LossVjp,
  // The fused step of one solver method, its VJP, and its VJP with respect
  // to static inputs.
  Step,
  StepVjp,
  StepStaticVjp,
  // The fused step of the continuous adjoint's augmented system.
  AdjointStep,
  // The fused step of an FSAL embedded pair, first stage given, last stage
  // returned (ad::RkStepOptions::fsal): the adaptive solver's step.
  StepFsal,
};

/// The VJP kind of a primal kind (Field -> FieldVjp, Step -> StepVjp, ...):
/// the one place that pairs a function with its derivative.
FnKind vjp_of(FnKind primal);

/// A function's typed key: its kind and, for the step kinds, the method.
struct FnRole {
  FnKind kind;
  /// The step kinds' solver method (one of rt::all_tableaus()); null otherwise.
  const rt::ButcherTableau* method = nullptr;

  constexpr FnRole(FnKind k, const rt::ButcherTableau* m = nullptr) : kind(k), method(m) {}
  /// Orders by kind, then method (the tableaus live in one array), so a
  /// role can key a map.
  friend auto operator<=>(const FnRole&, const FnRole&) = default;
};

/// The printed name: "field", "field.vjp", "adjoint", "outputs.vjp",
/// "step.rk4", "step.rk4.vjp", "step.rk4.vjp.static", ... (what `plastic
/// emit --stats` and diagnostics show).
std::string to_string(const FnRole& role);

/// A function of a model under its typed key.
struct NamedFunction {
  FnRole role;
  ir::Function fn;
};

/// The fused step of one solver method and everything that belongs to it.
struct ModelStep {
  NamedFunction step; ///< {Step, method}
  NamedFunction vjp;  ///< {StepVjp, method}
  /// {StepStaticVjp, method}, when the field reads static inputs: the step's
  /// VJP with respect to those statics (build_step_vjp leaves them out; the
  /// model ABI's step_vjp returns their cotangent too).
  std::optional<NamedFunction> static_vjp;
  /// {AdjointStep, method}: one step of the adjoint's augmented system
  /// (ad::build_adjoint_step), with error estimates for embedded pairs; its
  /// per-node controls are laid out as the step's (`info`). Only for the
  /// model's own method.
  std::optional<NamedFunction> adjoint;
  /// {StepFsal, method}, for FSAL embedded pairs (dopri5): the step with the
  /// first stage's rates given and the last stage's returned, from which
  /// step_adaptive is built (s - 1 field evaluations per step, not s + 1).
  std::optional<NamedFunction> fsal;
  /// The step's stage nodes and input naming (its fn is the unoptimised step;
  /// use `step.fn`).
  ad::RkStep info;

  /// The solver method (never null): the key of all of the above.
  const rt::ButcherTableau* method() const { return step.role.method; }
};

struct ModelFunctions {
  std::unique_ptr<dsl::CheckedModel> model;
  std::unique_ptr<ir::Context> ctx;   ///< owns every node of every function below
  std::vector<NamedFunction> primal;  ///< field, init, outputs, jump, loss
  std::vector<NamedFunction> derived; ///< field VJP, adjoint system, the other primals' VJPs
  std::vector<ModelStep> steps;       ///< fused solver steps, one per method

  /// The function with key `role` (primal, derived or step); nullptr if the
  /// model has none.
  const ir::Function* find(const FnRole& role) const;
  /// The fused step of `method`; nullptr if none (or `method` is null).
  const ModelStep* step(const rt::ButcherTableau* method) const;
  /// Each step and its VJP, method by method (what `plastic emit --step-ir`
  /// prints).
  std::vector<const NamedFunction*> step_functions() const;
  /// Primal, derived, then step_functions(): every function a listing shows
  /// (`plastic emit --stats`); the steps' static VJPs are left out.
  std::vector<const NamedFunction*> functions() const;
  /// Pairs (function, its VJP) to check by finite differences: each primal,
  /// then each step.
  std::vector<std::pair<const ir::Function*, const ir::Function*>> vjp_pairs() const;
};

struct BuildOptions {
  std::map<std::string, double> overrides; ///< --set name=value
  bool color = false;                      ///< colour diagnostics
  /// Sees every function after every optimisation pass (may be empty).
  std::function<void(std::string_view, const ir::Function&)> after_pass;
  int error_limit = 20; ///< errors shown per model file, 0 = all
  /// `dim d from data.X`: what the data provide (dsl::CheckOptions).
  std::map<std::string, int64_t> data_quantities;
  std::string data_name;
};

/// Why a build failed: the model has errors, or an override names nothing.
enum class BuildStatus { Ok, InputError, UsageError };

/// Checks and lowers `file`; diagnostics go to stderr. On failure returns
/// nullopt and says why in `status`.
std::optional<ModelFunctions>
build_model_functions(const std::string& file, const BuildOptions& options, BuildStatus& status);

/// Same, for a model given as text (the REPL's edited source); `name` is
/// the file name diagnostics show.
std::optional<ModelFunctions> build_model_functions_from_source(const std::string& name,
                                                                const std::string& text,
                                                                const BuildOptions& options,
                                                                BuildStatus& status);

/// Lowers and derives an already checked model (the front end's result);
/// a result without a model (errors, already rendered) gives nullopt.
std::optional<ModelFunctions> build_checked(dsl::CheckResult checked, const BuildOptions& options,
                                            BuildStatus& status);

/// Nodes reachable from a function's outputs.
size_t node_count(const ir::Function& f);

} // namespace plastic::model
