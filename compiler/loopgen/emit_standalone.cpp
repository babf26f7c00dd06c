// emit_standalone: one ir::Function as a kernel of its own, with a signature
// derived from the function alone (emit_function.h documents it). Used by
// the tests, which compare it with the interpreter, and by
// `plastic emit --loops`, which prints it. The model assembler does not use
// it: it binds the ABI's buffers itself.
#include <cctype>
#include <set>

#include "compiler/ir/traversal.h"
#include "compiler/loopgen/emit_function.h"
#include "compiler/loops/error.h"

namespace plastic::loopgen {

namespace {

/// IR names may hold dots or primes ("field.vjp", "z'"); C identifiers may not.
std::string c_name(const std::string& s, std::set<std::string>& taken) {
  std::string out;
  for (char c : s)
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "_" + out;
  std::string name = out;
  for (int k = 2; !taken.insert(name).second; ++k)
    name = out + "_" + std::to_string(k);
  return name;
}

bool is_scalar_input(const ir::Node* n) {
  return n->rank() == 0 && (n->op() == ir::Op::Time || n->op() == ir::Op::Arg) &&
         (n->name() == "t" || n->name() == "h");
}

} // namespace

loops::Function emit_standalone(const ir::Function& fn, loops::ElemType type, int lanes,
                                const std::string& name) {
  std::set<std::string> taken{"ctx", "scratch"};
  loops::Builder b(c_name(name.empty() ? fn.name() : name, taken), type, lanes);
  taken = {"ctx", "scratch"};
  b.opaque_param("ctx");
  std::vector<InputBinding> ins(fn.inputs().size());
  for (size_t i = 0; i < fn.inputs().size(); ++i)
    if (is_scalar_input(fn.inputs()[i]))
      ins[i] = InputBinding::value(b.scalar_param(c_name(fn.inputs()[i]->name(), taken)));
  for (size_t i = 0; i < fn.inputs().size(); ++i) {
    const ir::Node* in = fn.inputs()[i];
    if (is_scalar_input(in)) continue;
    std::string pname = c_name(in->name(), taken);
    loops::BufferOptions opts{.readonly = true};
    ins[i] =
        InputBinding::in(in->op() == ir::Op::Param ? b.uniform_param(pname, in->numel(), opts)
                                                   : b.varying_param(pname, in->numel(), opts));
  }
  std::vector<OutputBinding> outs;
  for (const ir::Output& o : fn.outputs()) {
    bool uniform = true;
    for (const ir::Node* n : ir::topo_order(std::span<const ir::Node* const>(&o.node, 1)))
      if (n->is_leaf() && n->op() != ir::Op::Param) uniform = false;
    std::string pname = c_name(o.name, taken);
    outs.push_back(OutputBinding::to(uniform ? b.uniform_param(pname, o.node->numel())
                                             : b.varying_param(pname, o.node->numel())));
  }
  b.scratch_param();
  emit_function(b, fn, ins, outs);
  return b.finish();
}

} // namespace plastic::loopgen
