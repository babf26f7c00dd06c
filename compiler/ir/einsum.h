// Einsum specifications of the `contract` op.
//
// The one general contraction names each operand axis with a label; output
// labels say which survive, all other labels are summed:
//   "ab,b->a" matvec, "ab,bc->ac" matmul, "a,b->ab" outer, "ab->ba"
//   transpose, "abc,ac->ab" multi-head matvec, "ab,ab->" Frobenius product.
// Labels are letters (a–z, A–Z). A label may not repeat within one operand
// or the output (no diagonals), and every output label must occur in some
// operand. The factory stores the canonical form: labels renamed in order of
// first appearance, so the same contraction always has the same text.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/types.h"

namespace plastic::ir {

class Node;

/// A parsed spec: labels as small integers (a=0 … z=25, A=26 … Z=51).
struct EinsumSpec {
  std::vector<std::vector<int>> inputs;
  std::vector<int> output;

  /// Parses "ab,b->a"; throws IRError on malformed text.
  static EinsumSpec parse(std::string_view text);
  /// The text form.
  std::string str() const;
  /// Labels renamed by first appearance (inputs in order, then the output).
  EinsumSpec canonical() const;
  /// One past the largest label used.
  int label_bound() const;
};

/// Checks `spec` against operand shapes; on success fills `label_size`
/// (indexed by label, -1 when unused) and returns "", else an error message.
std::string check_einsum(const EinsumSpec& spec, std::span<const Shape* const> shapes,
                         std::vector<int64_t>& label_size);

/// Letter of a label.
char einsum_letter(int label);

} // namespace plastic::ir
