// The state shared by the per-family emitters of one emit_function call
// (internal header of compiler/loopgen).
//
// An element of a node is addressed by a Pos: either a flat row-major
// offset or one affine index per axis (see schedule.h for when each is
// needed). eval() gives the value of a node at a Pos as a loop-IR
// expression: a load for a node with storage (leaf binding or scratch), else
// the node's op applied to its operands' values at the derived positions —
// which is how fused chains and views become index arithmetic. A node that
// is computed as a whole (materialised, or direct into outputs) is emitted
// by emit_root(), which produces every element exactly once and hands it to
// a Sink; the sink stores it into scratch or into the output bindings.
//
// Internal header of compiler/loopgen/: nothing outside that folder includes it.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/loopgen/emit_function.h"
#include "compiler/loopgen/schedule.h"
#include "compiler/loopgen/scratch_allocator.h"

namespace plastic::loopgen::detail {

/// A position in a node's shape: per-axis indices, or one flat offset.
struct Pos {
  bool flat = false;
  std::vector<loops::Index> idx; ///< one per axis, or {offset} when flat

  static Pos at_flat(loops::Index i) { return {true, {std::move(i)}}; }
  static Pos at_axes(std::vector<loops::Index> axes) { return {false, std::move(axes)}; }
};

/// Receives every element of a root once: (flat offset, value).
using Sink = std::function<void(const loops::Index&, loops::Expr)>;

/// Storage of a node: a buffer and the offset of its first element.
struct Location {
  loops::Buffer buf;
  int64_t offset = 0;
};

class Emitter {
public:
  Emitter(loops::Builder& b, const ir::Function& fn, const Schedule& sched,
          std::span<const InputBinding> inputs);

  loops::Builder& b;
  const ir::Function& fn;
  const Schedule& sched;

  /// The node's value at `pos`; through its storage when it has one.
  loops::Expr eval(const ir::Node* n, const Pos& pos);
  /// The node's value at `pos` computed from its operands (never its own storage).
  loops::Expr eval_op(const ir::Node* n, const Pos& pos);
  /// Emits the loops computing every element of `n` into `sink`.
  void emit_root(const ir::Node* n, const Sink& sink);

  void set_location(const ir::Node* n, Location loc) { stored_[n] = loc; }
  /// Where emitters may borrow a scratch row for the duration of one root
  /// (softmax keeps its exponentials there); null: they recompute instead.
  void set_scratch(ScratchAllocator* scratch) { scratch_ = scratch; }

  // ---- helpers shared by the family emitters --------------------------------

  /// Flat offset of a position in `shape`.
  static loops::Index flat_of(const Pos& pos, const ir::Shape& shape);
  /// Per-axis form of a position (a flat one must be decomposable).
  std::vector<loops::Index> axes_of(const Pos& pos, const ir::Node* n) const;
  /// Nested loops over `shape` (axes of size 1 get index 0, no loop); the
  /// body receives one index per axis.
  void for_each(const ir::Shape& shape, const std::function<void(std::vector<loops::Index>)>& body);
  /// Nested loops over the box [lo_a, hi_a) of every axis a (extent-1
  /// ranges get their constant index, no loop).
  void for_box(const std::vector<std::pair<int64_t, int64_t>>& ranges,
               const std::function<void(std::vector<loops::Index>)>& body);
  /// One flat loop over n elements (none when n == 1).
  void for_flat(int64_t n, const std::function<void(loops::Index)>& body);
  /// A loop-carried register of this emission, by role.
  loops::Var var(const std::string& role, bool uniform);
  /// "%12 = contract f64[4,20]" for comments and errors.
  static std::string describe(const ir::Node* n);
  /// Uniform or varying, as scheduled.
  bool uniform(const ir::Node* n) const { return sched.at(n).uniform; }

  // ---- per-family emission (emit_*.cpp) --------------------------------------

  /// Output elements a summing contraction accumulates side by side (see
  /// emit_contract.cpp). Two fma ports of four cycles' latency keep eight
  /// independent chains busy: a contraction alone sums 8 elements at a
  /// time, which with its shared operand fits AVX2's 16 vector registers;
  /// a group's members (contract_groups.h) already multiply the chains and
  /// sum 4 each. The remainder of a row takes blocks of 4, then single
  /// elements.
  static constexpr int64_t kContractBlock = 4;
  static constexpr int64_t kSoloContractBlock = 8;

  loops::Expr eval_elementwise(const ir::Node* n, const Pos& pos);
  loops::Expr eval_view(const ir::Node* n, const Pos& pos);
  void emit_contract(const ir::Node* n, const Sink& sink);
  /// A group of contractions (Schedule::group) in one loop nest, member j
  /// into sinks[j].
  void emit_contracts(std::span<const ir::Node* const> ns, std::span<const Sink> sinks);
  /// The loops of a summing contraction's output `shape` in register
  /// blocks (emit_contract.cpp): `block(out, r)` sums the r elements of the
  /// last axis from out's index on. Blocks of `widest` elements first, then
  /// of kContractBlock, then single elements.
  void for_contract_blocks(const ir::Shape& shape, int64_t widest,
                           const std::function<void(std::vector<loops::Index>, int64_t)>& block);
  /// A contraction without summed labels at one position (fused).
  loops::Expr eval_product(const ir::Node* n, const Pos& pos);
  void emit_reduce(const ir::Node* n, const Sink& sink);
  void emit_composite(const ir::Node* n, const Sink& sink);
  void emit_pad(const ir::Node* n, const Sink& sink);
  void emit_concat(const ir::Node* n, const Sink& sink);
  void emit_constant(const ir::Node* n, const Sink& sink);

private:
  loops::Expr eval_leaf(const ir::Node* n, const Pos& pos);

  std::span<const InputBinding> inputs_;
  std::unordered_map<const ir::Node*, Location> stored_;
  std::unordered_map<std::string, loops::Var> vars_;
  ScratchAllocator* scratch_ = nullptr;
  int loop_counter_ = 0;
};

} // namespace plastic::loopgen::detail
