// The Context: arena and hash-consing table of IR nodes.
//
// A Context owns every node made in it and frees them all at once when it
// dies (one per compilation or per REPL module): no reference counts, no
// recursive destructors on deep graphs. Functions and passes refer to nodes
// of one Context; nodes of different Contexts never mix.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "compiler/ir/node.h"

namespace plastic::ir {

class Context {
public:
  /// `default_dtype` is the element type of leaves and constants made
  /// without an explicit type (f64 unless the model asks for f32).
  explicit Context(DType default_dtype = DType::F64);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  DType default_dtype() const { return default_dtype_; }

  // ---- leaves. A leaf is identified by (kind, name, slot, dtype, shape):
  // asking twice returns the same node. `slot` is the ABI position the front
  // end assigns (e.g. the index in the parameter table); the IR only carries it.

  /// The time variable t (usually a scalar).
  const Node* time(std::string name = "t", Shape shape = {});
  /// A state tensor z (or one of several coupled states).
  const Node* state(std::string name, Shape shape, int64_t slot = 0);
  /// A slow weight θ.
  const Node* param(std::string name, Shape shape, int64_t slot = 0);
  /// An input sample: the control path value u(t) (or its derivative), a
  /// static feature, a target. Kernels receive these; they never interpolate.
  const Node* input(std::string name, Shape shape, int64_t slot = 0);
  /// Any other function argument: cotangents, tangents, the step size h.
  const Node* arg(std::string name, Shape shape, int64_t slot = 0);
  /// A leaf of kind `kind` (one of the leaf ops) with explicit dtype.
  const Node* leaf(Op kind, std::string name, Shape shape, int64_t slot, DType dtype);

  /// A splat constant: every element equals `value`.
  const Node* constant(double value, Shape shape = {}, std::optional<DType> dtype = {});
  /// A dense constant, row-major (`values.size()` must be numel(shape)).
  const Node* constant(std::vector<double> values, Shape shape, std::optional<DType> dtype = {});

  // ---- source locations. Factories stamp new nodes with the current
  // location, so the lowering sets it (LocationScope) before building the
  // IR of an AST node, and IR errors point at the model's source.

  /// A location whose file name is owned by this Context.
  SourceLoc location(std::string_view file, int line, int col);
  /// Location stamped on nodes created from now on (the file is interned).
  void set_location(SourceLoc loc);
  const SourceLoc& current_location() const { return loc_; }

  /// Creates or finds a node. Unchecked beyond internal consistency: use the
  /// factories of ops.h, which infer and check types, fold and canonicalise.
  /// The parser and rewriters use this for data that is already verified.
  const Node* make(Op op, DType dtype, Shape shape, std::vector<const Node*> operands, Attrs attrs);

  /// Number of nodes ever created in this Context.
  size_t size() const { return nodes_.size(); }

private:
  struct KeyHash {
    size_t operator()(const Node* n) const { return n->hash(); }
  };
  struct KeyEq {
    bool operator()(const Node* a, const Node* b) const;
  };
  DType default_dtype_;
  std::deque<Node> nodes_;
  std::unordered_set<const Node*, KeyHash, KeyEq> table_;
  std::deque<std::string> files_;
  SourceLoc loc_;
};

/// Sets the Context's current location for the lifetime of the scope.
class LocationScope {
public:
  LocationScope(Context& ctx, SourceLoc loc) : ctx_(ctx), saved_(ctx.current_location()) {
    ctx_.set_location(loc);
  }
  ~LocationScope() { ctx_.set_location(saved_); }
  LocationScope(const LocationScope&) = delete;
  LocationScope& operator=(const LocationScope&) = delete;

private:
  Context& ctx_;
  SourceLoc saved_;
};

} // namespace plastic::ir
