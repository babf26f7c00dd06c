// The checker's internal state, shared by checker.cpp (declarations, flows,
// outputs, loss, solver) and layers.cpp (parameters, initializers, layers).
//
// Internal header of dsl/: nothing outside that folder includes it.
#pragma once

#include "dsl/check.h"
#include "dsl/shape_domain.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace plastic::dsl::detail {

class Checker {
public:
  Checker(CheckedModel& model, const CheckOptions& options, DiagnosticEngine& diag)
      : m_(model), options_(options), diag_(diag), domain_(model, diag),
        eval_(model, bindings_, domain_, diag, &uses_) {
    uses_.index = options.symbols;
  }

  bool run(const Module& prelude, const Module& user);
  bool usage_error() const { return usage_error_; }

private:
  // checker.cpp
  void declare(const std::string& name, Span span, const char* what);
  void check_dim(const DimDecl& d);
  bool check_data_dim(const DimDecl& d, DimValue& v);
  std::optional<TuneRange> check_tune(const DimDecl& d);
  void check_input(const InputDecl& in);
  void check_state(const StateDecl& s);
  void check_flows_and_jumps(const Module& user);
  void check_outputs(const Module& user);
  void check_loss(const Module& user);
  void check_solver(const SolveDecl* solve);
  void check_gradient(const GradientDecl* gradient);
  void check_budget(const Option& o, GradientInfo& info);
  void warn_unused(const Module& user);
  /// Evaluates `e` (checking it) and records its resolved form into `out`.
  ShapeValue resolve(const Expr& e, Where where, ResolvedExpr& out);
  std::optional<int64_t> positive_int(const Expr& e, std::string_view what,
                                      const LayerInstance* layer = nullptr);
  std::optional<Shape> shape_of(const std::vector<ExprPtr>& dims,
                                const LayerInstance* layer = nullptr);
  /// Reports `what` ("parameter 'big'") at `where` when its `count`
  /// elements, or the model's `total` of its kind with them, exceed
  /// kMaxElements; `dims` (may be null) are the shape's expressions, for a
  /// hint naming the dim to lower. Adds count to total.
  bool within_size_limit(Span where, const std::string& what, double count,
                         const std::vector<ExprPtr>* dims, const Shape* shape, double& total,
                         const char* kind);

  // checker_symbols.cpp: the symbol index (symbols.h), when one is asked for
  void index_declarations(const Module& user);
  void index_checked();

  // layers.cpp
  void check_param(const ParamDecl& p, LayerInstance* owner, const std::string& prefix);
  std::optional<InitInfo> check_init(const ParamDecl& p, const Shape& shape,
                                     const LayerInstance* owner);
  const LayerInstance* instantiate(const Invocation& type, const std::string& path,
                                   const LayerInstance* caller);
  const LayerDecl* find_layer(const std::string& name) const;
  const LayerDecl* synthesize_mlp(const Invocation& type, const LayerInstance* caller,
                                  InitInfo& group_init);

  CheckedModel& m_;
  const CheckOptions& options_;
  DiagnosticEngine& diag_;
  ShapeDomain domain_;
  Uses uses_;
  Bindings bindings_;
  Evaluator<ShapeDomain> eval_;
  std::map<std::string, Span> declared_;
  std::set<std::string> used_overrides_;
  std::map<std::string, const LayerDecl*> layer_defs_;
  bool usage_error_ = false;
  int next_group_ = 0;
  double param_elements_ = 0, state_elements_ = 0; ///< totals so far, for the size limit
};

} // namespace plastic::dsl::detail
