// An IR Function: named, ordered inputs (leaves) and named outputs.
//
// A Function is a view: it names roots in a Context's DAG and fixes the
// order of its inputs, which is the calling convention (ABI) of the kernel
// generated from it. It is cheap to copy. Every leaf an output depends on
// must be an input; inputs may be unused (an ABI slot the expression happens
// not to need).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/context.h"

namespace plastic::ir {

/// One named result of a Function.
struct Output {
  std::string name;
  const Node* node = nullptr;
};

class Function {
public:
  /// Checks that inputs are distinct leaves with distinct names, output
  /// names are distinct, at least one output exists, and every leaf under
  /// the outputs is an input; throws IRError otherwise.
  Function(std::string name, std::vector<const Node*> inputs, std::vector<Output> outputs);

  const std::string& name() const { return name_; }
  const std::vector<const Node*>& inputs() const { return inputs_; }
  const std::vector<Output>& outputs() const { return outputs_; }
  Context& context() const { return *ctx_; }

  /// The input leaf called `name`, or nullptr.
  const Node* input(std::string_view name) const;
  /// The output called `name`, or nullptr.
  const Node* output(std::string_view name) const;
  /// Position of input `name`; throws IRError if absent.
  size_t input_index(std::string_view name) const;
  /// Output nodes in order.
  std::vector<const Node*> output_nodes() const;
  /// Inputs of one leaf kind (Op::State, Op::Param, ...), in input order.
  std::vector<const Node*> inputs_of_kind(Op kind) const;
  /// Same name and inputs, new output nodes (same count and names).
  Function with_output_nodes(const std::vector<const Node*>& nodes) const;

private:
  std::string name_;
  std::vector<const Node*> inputs_;
  std::vector<Output> outputs_;
  Context* ctx_ = nullptr;
};

} // namespace plastic::ir
