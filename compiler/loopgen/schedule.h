// The schedule of one emitted ir::Function: which nodes get a buffer of
// their own, which are fused into their consumer's loop, which are uniform,
// in which if_present region each node is computed, and the linear order of
// emission steps with the last use of every buffer.
//
// It is decided before any loop IR is built so that the emitters
// (emit_*.cpp) only follow it. The rules (emit_function.h states the
// contract) in short:
//   * contractions, reductions, composites, pad, concat and non-splat
//     constants are materialised;
//   * a node used more than once is materialised unless re-evaluating it is
//     free (a leaf, a splat, or a broadcast/reshape/slice view of such) or
//     nearly so (such a node times a scalar: one multiply per read beats a
//     store and a reload of a state-sized buffer);
//   * a fused operand that its consumer would read more than once per
//     element it produces (broadcasts, contractions, composites) must be
//     free to re-evaluate, else it is materialised;
//   * a reshape addresses its operand by flat offset, so an operand that
//     needs per-axis indices (a fused broadcast or slice) is materialised;
//   * comparisons are never materialised (masks have no memory form);
//   * fused chains deeper than a bound are cut (keeps expression trees and
//     the emitter's recursion small);
//   * summing contractions that stream the same operand over the same
//     loop space, none depending on another, are grouped into one loop
//     nest (contract_groups.h) and their steps made consecutive;
//   * when outputs may alias inputs (a step's z1 = z0), every node is
//     computed first; an output whose fused loop reads the aliased input
//     only element for element (z1 = z0 + Σ ...) is then stored straight
//     from that loop, any other through scratch.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "compiler/ir/function.h"

namespace plastic::loopgen {

/// True for a contraction that sums over at least one label (one that
/// needs an accumulator loop); the others are elementwise products.
bool contract_sums(const ir::Node* n);

/// A tensor times a single number (a step VJP's h b_i z1_bar).
struct ScaledOperand {
  const ir::Node* tensor; ///< read element for element, at the product's index
  const ir::Node* scalar; ///< one number, or a broadcast of one
};
/// `n` as a tensor times a scalar (a multiplication, or a contraction
/// without sums that does not transpose); nullopt otherwise.
std::optional<ScaledOperand> scaled_operand(const ir::Node* n);

/// Region of a node or output: kTopRegion, or the index of a nullable
/// output buffer's if_present block.
inline constexpr int kTopRegion = -1;

struct NodeSchedule {
  bool uniform = false;
  bool materialise = false; ///< gets a scratch buffer
  bool direct = false;      ///< only feeds outputs: computed straight into them
  int uses = 0;             ///< operand uses by live nodes + output appearances
  int region = kTopRegion;
  int64_t last_use = -1; ///< last step reading its buffer (materialised nodes)
};

/// One emission step, in execution order.
struct Step {
  enum class Kind : uint8_t { Compute, Output, Open, Close };
  Kind kind = Kind::Compute;
  const ir::Node* node = nullptr; ///< Compute: the node (materialised or direct)
  int output = -1;                ///< Output: index into fn.outputs()
  int region = kTopRegion;        ///< Open/Close: the region
};

/// What the schedule needs to know about the bindings.
struct ScheduleInput {
  std::vector<bool> input_uniform; ///< per fn.inputs()[i]
  std::vector<bool> output_live;   ///< per fn.outputs()[j]: false = Discard
  std::vector<int> output_region;  ///< per output: kTopRegion or a region id
  int num_regions = 0;
  /// An output buffer may alias an input: every node is computed before the
  /// first output store, and an output is stored straight from its loop only
  /// when that loop reads the aliased inputs at the very element it writes
  /// (see input_alias_offset); any other output goes through scratch.
  bool outputs_may_alias = false;
  /// Per fn.inputs()[i]: the binding's offset when its buffer may alias an
  /// output buffer, else -1.
  std::vector<int64_t> input_alias_offset;
  /// Per fn.outputs()[j]: the binding's offset, and whether its buffer may
  /// alias an input.
  std::vector<int64_t> output_offset;
  std::vector<bool> output_may_alias;
  /// Bits of one tile vector (lanes × element bits): how many contractions
  /// may share a pass before their accumulators outgrow the registers.
  int vector_bits = 256;
};

class Schedule {
public:
  Schedule(const ir::Function& fn, const ScheduleInput& in);

  const NodeSchedule& at(const ir::Node* n) const;
  bool live(const ir::Node* n) const { return info_.count(n) != 0; }
  const std::vector<Step>& steps() const { return steps_; }
  /// Live nodes, operands first.
  const std::vector<const ir::Node*>& order() const { return order_; }
  /// The contractions emitted in one loop nest with n, n among them, in
  /// step order (their Compute steps are consecutive); empty when n is
  /// emitted on its own.
  std::span<const ir::Node* const> group(const ir::Node* n) const;

  /// True when n is read through index arithmetic alone — a leaf, a splat,
  /// a materialised node, or a broadcast/reshape/slice view of one — or
  /// with one multiply more: such a node times a scalar.
  bool cheap(const ir::Node* n) const;
  /// True when evaluating n in a fused loop needs a per-axis index (a fused
  /// broadcast or slice of rank > 1 below it), not only a flat offset.
  bool needs_axes(const ir::Node* n) const;
  /// needs_axes of n's own computation from its operands (n as a loop root).
  bool op_needs_axes(const ir::Node* n) const;
  /// Has its own storage: a materialised node or a leaf (bindings give it).
  bool addressable(const ir::Node* n) const;
  /// How a summing contraction reads its operand o: a fused tensor times a
  /// scalar is summed unscaled and each sum scaled once (the tensor and the
  /// scalar); nullopt when o is read as it is.
  std::optional<ScaledOperand> summed_read(const ir::Node* o) const;

private:
  bool cheap_after(const ir::Node* n) const;
  void decide(const ir::Function& fn, const ScheduleInput& in);
  // The phases of decide(), in order.
  std::unordered_map<const ir::Node*, int> count_uses(const ir::Function& fn,
                                                      const ScheduleInput& in);
  std::unordered_map<const ir::Node*, std::vector<int>> assign_regions(const ir::Function& fn,
                                                                       const ScheduleInput& in);
  void decide_base(const ScheduleInput& in,
                   const std::unordered_map<const ir::Node*, int>& operand_uses,
                   const std::unordered_map<const ir::Node*, std::vector<int>>& out_regions);
  void apply_consumer_rules();
  void cut_deep_chains();
  void demote_unsafe_direct(const ir::Function& fn, const ScheduleInput& in);
  bool stores_safely(const ir::Function& fn, const ScheduleInput& in, const ir::Node* n) const;
  void group_contracts(const ir::Function& fn, const ScheduleInput& in);
  void plan(const ir::Function& fn, const ScheduleInput& in);
  void mark_reads(const ir::Node* root, bool include_root, int64_t step);

  std::unordered_map<const ir::Node*, NodeSchedule> info_;
  std::vector<const ir::Node*> order_;
  std::vector<Step> steps_;
  std::vector<std::vector<const ir::Node*>> groups_;
  std::unordered_map<const ir::Node*, size_t> group_of_;
};

} // namespace plastic::loopgen
