// Pass fusion of contractions: summing contractions that stream the same
// operand over the same loop space, none depending on another, are
// emitted as one loop nest with an accumulator block per member, so the
// streamed operand is loaded once for all of them.
//
// The case that asks for it: a fast weight step reassociates every stage's
// W_i k_i to W_0 k_i + (rank-1 corrections), so rk4's `step` multiplies the
// same state W_0 by three keys that do not depend on the state, and
// `step_vjp` multiplies z1_bar and its transpose by each stage's vectors.
// Apart, each mat-vec loads W_0 once per fma; together, three share one
// load.
//
// Internal to compiler/loopgen (the schedule calls it, the emitter follows
// the groups it leaves in the schedule).
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "compiler/ir/function.h"

namespace plastic::loopgen {

/// Contractions a group holds at most for vectors of `vector_bits`: 3
/// members × kContractBlock accumulators plus the members' own vectors fill
/// AVX2's 16 registers; 512-bit vectors mean AVX-512's 32, where 4 members
/// (16 accumulators) fit — rk4's step_vjp streams z1_bar and z0 transposed
/// for four stage vectors each, one pass each instead of two.
size_t max_contract_group(int vector_bits);

/// What the grouping asks of the schedule about one node.
struct GroupCandidate {
  bool eligible = false;              ///< a materialised summing contraction, not an output
  const ir::Node* streamed = nullptr; ///< the operand it streams, as read (scale stripped)
  size_t streamed_index = 0;          ///< which operand that is
  bool uniform = false;
  int region = 0;
};

/// Groups of >= 2 contractions over `order` (live nodes, operands first)
/// that may share a loop nest: same einsum, same operand shapes, same
/// streamed node at the same operand, same lanes and region, no member
/// reaching another, at most `max_group` members. Members are in `order`'s
/// order.
std::vector<std::vector<const ir::Node*>>
find_contract_groups(const std::vector<const ir::Node*>& order,
                     const std::function<GroupCandidate(const ir::Node*)>& candidate,
                     size_t max_group);

/// `order` re-sorted so that each group's members are consecutive (and
/// otherwise as close to the original order as the dependencies allow);
/// nullopt when merging the groups would make a cycle.
std::optional<std::vector<const ir::Node*>>
order_with_groups(const std::vector<const ir::Node*>& order,
                  const std::vector<std::vector<const ir::Node*>>& groups);

} // namespace plastic::loopgen
