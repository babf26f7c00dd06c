// Loop-IR kernels as C++ functions (kernel_writer.h).
#include "compiler/backend/cpp/kernel_writer.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "compiler/loops/c_header.h"
#include "compiler/loops/error.h"

namespace plastic::backend::cpp::detail {

using namespace ::plastic::loops;

std::string identifier(std::string_view name) {
  std::string s;
  for (char c : name)
    s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "_" + s;
  return s;
}

namespace {

// Names the generated file defines or uses besides a kernel's own: the
// element type and lanes, the lane index, the math helpers of the prelude,
// and C++ keywords a model could use as a name.
const std::set<std::string>& reserved_names() {
  static const std::set<std::string> names = {
      "T",          "L",       "l",        "sum",      "lane_sum",     "std",      "square",
      "reciprocal", "sigmoid", "softplus", "relu",     "elu",          "step",     "sign",
      "vm",         "min_nan", "max_nan",  "scratch",  "PLASTIC_SIMD", "auto",     "bool",
      "break",      "case",    "char",     "class",    "const",        "continue", "default",
      "delete",     "do",      "double",   "else",     "enum",         "explicit", "extern",
      "false",      "float",   "for",      "goto",     "if",           "inline",   "int",
      "long",       "new",     "operator", "private",  "public",       "register", "return",
      "short",      "signed",  "sizeof",   "static",   "struct",       "switch",   "template",
      "this",       "throw",   "true",     "try",      "typedef",      "union",    "unsigned",
      "using",      "virtual", "void",     "volatile", "while",        "and",      "or",
      "not",        "xor",     "int64_t",  "uint64_t", "ctx",          "NAN",      "INFINITY",
      "main"};
  return names;
}

// A named block of a parameter buffer (a parameter of theta, a state of z).
struct NamedSlice {
  std::string name; ///< identifier of the pointer to its first element
  int64_t offset = 0;
  int64_t size = 0;
  bool used = false;
};

bool one_of(std::string_view s, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), s) != names.end();
}

class KernelWriter {
public:
  KernelWriter(const Function& fn, const KernelContext& context) : fn_(fn), ctx_(context) {}

  std::string run() {
    name_locals();
    std::string body;
    block(fn_.body, body);
    for (uint32_t b : used_buffers_)
      used_scratch_ = used_scratch_ || fn_.buffers[b].is_scratch();
    std::string head = declarations();
    return signature() + " {\n" + head + body + "}\n";
  }

private:
  // ---- names -----------------------------------------------------------------

  std::string unique(std::string_view want) {
    std::string base = identifier(want);
    std::string name = base;
    for (int k = 2; reserved_names().count(name) || taken_.count(name); ++k)
      name = fmt::format("{}_{}", base, k);
    taken_.insert(name);
    return name;
  }

  void name_locals() {
    scalar_names_.resize(fn_.params.size());
    for (size_t i = 0; i < fn_.params.size(); ++i)
      if (fn_.params[i].kind == ParamKind::Scalar) scalar_names_[i] = unique(fn_.params[i].name);
    buffer_names_.resize(fn_.buffers.size());
    for (size_t b = 0; b < fn_.buffers.size(); ++b)
      buffer_names_[b] = unique(fn_.buffers[b].name);
    var_names_.resize(fn_.vars.size());
    for (size_t v = 0; v < fn_.vars.size(); ++v)
      var_names_[v] = unique(fn_.vars[v].name);
    loop_names_.resize(fn_.loops.size());
    slices_.resize(fn_.buffers.size());
    for (size_t b = 0; b < fn_.buffers.size(); ++b)
      name_slices(static_cast<uint32_t>(b));
  }

  // The layout's named slices of a parameter buffer, recognised by the ABI's
  // parameter names (runtime/abi.h) and checked against its size.
  void name_slices(uint32_t b) {
    const BufferDecl& d = fn_.buffers[b];
    if (!ctx_.layout || d.is_scratch() || d.nullable) return;
    const abi::ModelLayout& lay = *ctx_.layout;
    const std::string& buf = d.name;
    std::vector<NamedSlice> slices;
    // theta is the parameters themselves; z holds the states by their names.
    auto add = [&](const std::string& slice, int64_t offset, int64_t size, bool bare) {
      slices.push_back({bare ? slice : buf + "_" + slice, offset, size, false});
    };
    int64_t total = -1;
    if (one_of(buf, {"theta", "theta_bar", "dtheta"})) {
      for (const abi::ParamEntry& p : lay.params)
        add(p.name, p.c.offset, p.c.size, buf == "theta");
      total = lay.n_params;
    } else if (one_of(buf,
                      {"z", "z0", "z1", "dz", "z_bar", "z0_bar", "z1_bar", "a", "da", "z_minus",
                       "z_plus", "z_minus_bar", "z_plus_bar", "k_first", "k_last", "err"})) {
      for (const abi::Slice& s : lay.states)
        add(s.name, s.offset, s.size, buf == "z");
      total = lay.n_state;
    } else if (one_of(buf, {"u", "u0", "u_bar", "u0_bar"})) {
      for (const abi::InputSlot& s : lay.inputs) {
        const bool deriv = s.c.kind == PLASTIC_INPUT_PATH_DERIV;
        add((deriv ? "d" : "") + s.name, s.c.offset, s.c.channels, buf == "u");
      }
      total = lay.n_input;
    } else if (one_of(buf, {"y", "y_bar"})) {
      for (const abi::Slice& s : lay.outputs)
        add(s.name, s.offset, s.size, false);
      total = lay.n_outputs;
    } else if (buf == "target") {
      for (const abi::Slice& s : lay.targets)
        add(s.name, s.offset, s.size, false);
      total = lay.n_targets;
    }
    if (total != d.size) return;
    for (NamedSlice& s : slices)
      s.name = unique(s.name);
    slices_[b] = std::move(slices);
  }

  // ---- declarations ------------------------------------------------------------

  std::string element_pointer(const BufferDecl& d) const { return d.readonly ? "const T*" : "T*"; }

  std::string signature() {
    std::string s = fmt::format("extern \"C\" void {}(", fn_.name);
    for (size_t i = 0; i < fn_.params.size(); ++i) {
      const Param& p = fn_.params[i];
      if (i) s += ", ";
      switch (p.kind) {
      case ParamKind::Scalar:
        s += used_scalars_.count(i) ? "double " + scalar_names_[i]
                                    : fmt::format("double /*{}*/", p.name);
        break;
      case ParamKind::Opaque:
        s += fmt::format("const void* /*{}*/", p.name);
        break;
      case ParamKind::Scratch:
        s += used_scratch_ ? "void* scratch" : "void* /*scratch*/";
        break;
      case ParamKind::Buffer: {
        const BufferDecl& d = fn_.buffers[p.buffer];
        const char* type = d.readonly ? "const void*" : "void*";
        s += used_buffers_.count(p.buffer) ? fmt::format("{} {}_ptr", type, buffer_names_[p.buffer])
                                           : fmt::format("{} /*{}*/", type, p.name);
        break;
      }
      }
    }
    if (fn_.params.empty()) s += "void";
    return s + ")";
  }

  std::string declarations() {
    std::string s;
    for (uint32_t b : used_buffers_) {
      const BufferDecl& d = fn_.buffers[b];
      const std::string& name = buffer_names_[b];
      // __restrict: the ABI's outputs never alias its inputs, except where
      // the loop IR says they may (z1 and z0 of a step).
      const char* restrict = d.noalias ? " __restrict" : "";
      if (d.is_scratch())
        s += fmt::format("{}{} {} = reinterpret_cast<{}>(static_cast<char*>(scratch) + {});\n",
                         element_pointer(d), restrict, name, element_pointer(d), d.scratch_offset);
      else
        s += fmt::format("{}{} {} = static_cast<{}>({}_ptr);\n", element_pointer(d), restrict, name,
                         element_pointer(d), name);
      // Pointers based on a restrict pointer may share its elements.
      for (const NamedSlice& slice : slices_[b]) {
        if (!slice.used) continue;
        if (slice.offset == 0)
          s += fmt::format("{} {} = {};\n", element_pointer(d), slice.name, name);
        else
          s += fmt::format("{} {} = {} + {};\n", element_pointer(d), slice.name, name,
                           d.lanes == Lanes::Varying ? fmt::format("{} * L", slice.offset)
                                                     : fmt::format("{}", slice.offset));
      }
    }
    for (size_t v = 0; v < fn_.vars.size(); ++v) {
      if (fn_.vars[v].lanes == Lanes::Varying)
        s += fmt::format("T {}[L] = {{}};\n", var_names_[v]);
      else
        s += fmt::format("T {} = 0;\n", var_names_[v]);
    }
    return s;
  }

  // ---- statements --------------------------------------------------------------

  // Consecutive per-lane statements share one lane loop: each lane's
  // statements run in order and no statement reads another lane, so doing
  // all of them lane by lane is doing them one after another.
  void block(const std::vector<Stmt>& body, std::string& out) {
    std::string lanes;
    auto flush = [&] {
      if (lanes.empty()) return;
      out += "PLASTIC_SIMD\nfor (int64_t l = 0; l < L; ++l) {\n" + lanes + "}\n";
      lanes.clear();
    };
    for (const Stmt& s : body) {
      switch (s.kind) {
      case StmtKind::Comment:
        flush();
        comment(s, out);
        break;
      case StmtKind::Loop: {
        flush();
        const LoopDecl& l = fn_.loops[s.target];
        const std::string i = loop_name(s.target);
        out += fmt::format("for (int64_t {0} = {1}; {0} < {2}; ++{0}) {{\n", i, l.begin, l.end);
        open_loops_.insert(i);
        block(s.body, out);
        open_loops_.erase(i);
        flush();
        out += "}\n";
        break;
      }
      case StmtKind::IfPresent:
        flush();
        used_buffers_.insert(s.target);
        out += fmt::format("if ({}) {{\n", buffer_names_[s.target]);
        block(s.body, out);
        out += "}\n";
        break;
      case StmtKind::Prefetch: {
        flush();
        used_buffers_.insert(s.target);
        const bool varying = fn_.buffers[s.target].lanes == Lanes::Varying;
        const std::string i = index_text(fn_.indices[s.index], 0);
        out += fmt::format("__builtin_prefetch(&{}[{}]);\n", buffer_names_[s.target],
                           varying ? "(" + i + ") * L" : i);
        break;
      }
      case StmtKind::Assign:
      case StmtKind::Store:
        if (!statement(s, lanes)) {
          flush();
          out += pending_;
        }
        break;
      }
    }
    flush();
  }

  // A loop's name: its loop-IR name unless that is a buffer's, a variable's
  // or an enclosing loop's (sibling loops may share one).
  std::string loop_name(uint32_t loop) {
    std::string base = identifier(fn_.loops[loop].name), name = base;
    for (int k = 2; reserved_names().count(name) || taken_.count(name) || open_loops_.count(name);
         ++k)
      name = fmt::format("{}_{}", base, k);
    loop_names_[loop] = name;
    return name;
  }

  void comment(const Stmt& s, std::string& out) {
    out += "// " + s.text + "\n";
    const int line = s.source_line;
    if (line > 0 && static_cast<size_t>(line) <= ctx_.source_lines.size()) {
      std::string text = ctx_.source_lines[static_cast<size_t>(line - 1)];
      const size_t first = text.find_first_not_of(" \t");
      const size_t last = text.find_last_not_of(" \t\r");
      text = first == std::string::npos ? "" : text.substr(first, last - first + 1);
      out += fmt::format("// {}:{}: {}\n", ctx_.source_name, line, text);
    }
  }

  // One assignment or store. Per-lane statements go into `lanes` (the body
  // of the current lane loop) and return true; scalar statements and lane
  // sums are left in pending_ and return false: the caller closes the open
  // lane loop and writes them after it.
  bool statement(const Stmt& s, std::string& lanes) {
    const bool to_var = s.kind == StmtKind::Assign;
    const Lanes target_lanes = to_var ? fn_.vars[s.target].lanes : fn_.buffers[s.target].lanes;
    const bool lane_sum = !to_var && s.mode == StoreMode::AddLaneSum;
    uses_.clear();
    shared_.clear();
    count_uses(s.value);
    std::string lets;
    std::string value = expr(s.value, lets, true);
    std::string target;
    if (to_var) {
      target = var_names_[s.target] + (target_lanes == Lanes::Varying ? "[l]" : "");
    } else {
      used_buffers_.insert(s.target);
      target = access(s.target, s.index, target_lanes == Lanes::Varying);
    }
    std::string done;
    if (lane_sum) {
      done = "{\nT sum[L];\nPLASTIC_SIMD\nfor (int64_t l = 0; l < L; ++l) {\n" + lets +
             "sum[l] = " + value + ";\n}\n" + target + " += lane_sum<L>(sum);\n}\n";
    } else {
      const char* op = s.kind == StmtKind::Store && s.mode == StoreMode::Add ? " += " : " = ";
      const std::string assign = target + op + value + ";\n";
      const std::string text = lets.empty() ? assign : "{\n" + lets + assign + "}\n";
      if (target_lanes == Lanes::Varying) {
        lanes += text;
        return true;
      }
      done = text;
    }
    pending_ = std::move(done);
    return false;
  }

  // ---- expressions -------------------------------------------------------------

  void count_uses(uint32_t id) {
    if (uses_[id]++ > 0) return;
    const ExprNode& n = fn_.exprs[id];
    for (int k = 0; k < n.arity(); ++k)
      count_uses(n.args[k]);
  }

  // The text of an expression; nodes used twice in the statement become a
  // `const` local in `lets` (computed once, as the loop IR specifies).
  std::string expr(uint32_t id, std::string& lets, bool top = false) {
    const ExprNode& n = fn_.exprs[id];
    if (n.arity() > 0 && uses_[id] > 1 && !top) {
      auto it = shared_.find(id);
      if (it != shared_.end()) return it->second;
      std::string body = strip(expr_body(n, lets));
      std::string name = fmt::format("{}{}", n.is_mask ? "m" : "e", id);
      lets += fmt::format("const {} {} = {};\n", n.is_mask ? "bool" : "T", name, body);
      shared_[id] = name;
      return name;
    }
    std::string s = expr_body(n, lets);
    return top ? strip(s) : s;
  }

  static std::string strip(const std::string& s) {
    if (s.size() < 2 || s.front() != '(' || s.back() != ')') return s;
    int depth = 0;
    for (size_t i = 0; i + 1 < s.size(); ++i) {
      depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
      if (depth == 0) return s;
    }
    return s.substr(1, s.size() - 2);
  }

  std::string constant(double v) const {
    if (std::isnan(v)) return "T(NAN)";
    if (std::isinf(v)) return v > 0 ? "T(INFINITY)" : "T(-INFINITY)";
    // The literal is the element type's own value, so float arithmetic stays
    // float (as the LLVM backend's constants of the element type).
    std::string s =
        fn_.type == ElemType::F32 ? fmt::format("{}", static_cast<float>(v)) : fmt::format("{}", v);
    if (s.find_first_of(".eE") == std::string::npos) s += ".0";
    if (fn_.type == ElemType::F32) s += "f";
    return v < 0 ? "(" + s + ")" : s;
  }

  std::string expr_body(const ExprNode& n, std::string& lets) {
    auto arg = [&](int k) { return expr(n.args[k], lets); };
    auto bare = [&](int k) { return strip(arg(k)); };
    switch (n.kind) {
    case ExprKind::Const:
      return constant(n.value);
    case ExprKind::ScalarParam:
      used_scalars_.insert(n.ref);
      return fmt::format("T({})", scalar_names_[n.ref]);
    case ExprKind::VarRef:
      return var_names_[n.ref] + (fn_.vars[n.ref].lanes == Lanes::Varying ? "[l]" : "");
    case ExprKind::Load:
      used_buffers_.insert(n.ref);
      return access(n.ref, n.index, fn_.buffers[n.ref].lanes == Lanes::Varying);
    case ExprKind::Unary:
      return unary(n, arg(0));
    case ExprKind::Binary: {
      static constexpr const char* kInfix[] = {" + ", " - ", " * ", " / "};
      const BinaryOp op = n.binary_op();
      if (op == BinaryOp::Min) return fmt::format("min_nan({}, {})", bare(0), bare(1));
      if (op == BinaryOp::Max) return fmt::format("max_nan({}, {})", bare(0), bare(1));
      std::string a = arg(0);
      return "(" + a + kInfix[static_cast<int>(op)] + arg(1) + ")";
    }
    case ExprKind::Compare: {
      static constexpr const char* kInfix[] = {" < ", " <= ", " > ", " >= ", " == ", " != "};
      std::string a = arg(0);
      return "(" + a + kInfix[n.op] + arg(1) + ")";
    }
    case ExprKind::Fma: {
      std::string a = bare(0), b = bare(1);
      return fmt::format("std::fma({}, {}, {})", a, b, bare(2));
    }
    case ExprKind::Select: {
      std::string c = arg(0), a = arg(1);
      return fmt::format("({} ? {} : {})", c, a, arg(2));
    }
    }
    PLASTIC_CHECK(false, "C++ backend: unknown expression kind in '{}'", fn_.name);
    return {};
  }

  std::string unary(const ExprNode& n, const std::string& x) const {
    const std::string b = strip(x);
    switch (n.unary_op()) {
    case UnaryOp::Neg:
      return "(-" + x + ")";
    case UnaryOp::Abs:
      return "std::abs(" + b + ")";
    case UnaryOp::Square:
      return "square(" + b + ")";
    case UnaryOp::Reciprocal:
      return "(T(1) / " + x + ")";
    case UnaryOp::Sqrt:
      return "std::sqrt(" + b + ")";
    case UnaryOp::Exp:
      return "vm::exp(" + b + ")";
    case UnaryOp::Expm1:
      return "vm::expm1(" + b + ")";
    case UnaryOp::Log:
      return "vm::log(" + b + ")";
    case UnaryOp::Log1p:
      return "vm::log1p(" + b + ")";
    case UnaryOp::Tanh:
      return "vm::tanh(" + b + ")";
    case UnaryOp::Sigmoid:
      return "sigmoid(" + b + ")";
    case UnaryOp::Softplus:
      return "softplus(" + b + ")";
    case UnaryOp::Relu:
      return "relu(" + b + ")";
    case UnaryOp::Elu:
      return fmt::format("elu({}, {})", b, constant(n.value));
    case UnaryOp::Step:
      return "step(" + b + ")";
    case UnaryOp::Sign:
      return "sign(" + b + ")";
    case UnaryOp::Sin:
      return "std::sin(" + b + ")";
    case UnaryOp::Cos:
      return "std::cos(" + b + ")";
    case UnaryOp::PowC:
      return power(b, n.value);
    }
    PLASTIC_CHECK(false, "C++ backend: unknown unary op in '{}'", fn_.name);
    return {};
  }

  // x^p as the LLVM backend computes it (llvm/vector_math.cpp): square and
  // multiply for integer |p| <= 64, sqrt for 1/2, exp(p log x) otherwise;
  // chosen here, where p is known, so the lane loop has no branch on it.
  std::string power(const std::string& x, double p) const {
    if (p == 0) return "T(1)"; // pow(x, 0) = 1 even for NaN
    if (p == std::trunc(p) && std::abs(p) <= 64) {
      const std::string pos = fmt::format("vm::powi<{}>({})", static_cast<int>(std::abs(p)), x);
      return p < 0 ? "(T(1) / " + pos + ")" : pos;
    }
    if (p == 0.5) return "vm::pow_half(" + x + ")";
    return fmt::format("vm::pow({}, {})", x, constant(p));
  }

  // ---- memory ------------------------------------------------------------------

  // Smallest and largest element an affine index reaches over its loops.
  std::pair<int64_t, int64_t> range(const Index& ix) const {
    int64_t lo = ix.offset, hi = ix.offset;
    for (const Index::Term& t : ix.terms) {
      const LoopDecl& l = fn_.loops[t.loop];
      const int64_t a = t.stride * l.begin, b = t.stride * (l.end - 1);
      lo += std::min(a, b);
      hi += std::max(a, b);
    }
    return {lo, hi};
  }

  std::string index_text(const Index& ix, int64_t shift) const {
    std::string s;
    for (const Index::Term& t : ix.terms) {
      const std::string& name = loop_names_[t.loop];
      if (!s.empty())
        s += t.stride < 0 ? " - " : " + ";
      else if (t.stride < 0)
        s += "-";
      const int64_t mag = t.stride < 0 ? -t.stride : t.stride;
      s += mag == 1 ? name : fmt::format("{} * {}", name, mag);
    }
    const int64_t offset = ix.offset - shift;
    if (s.empty()) return fmt::format("{}", offset);
    if (offset > 0) s += fmt::format(" + {}", offset);
    if (offset < 0) s += fmt::format(" - {}", -offset);
    return s;
  }

  // `name[index]` (uniform) or `name[index * L + l]` (varying), through the
  // named slice the whole access stays in when there is one.
  std::string access(uint32_t buf, uint32_t index, bool varying) {
    const Index& ix = fn_.indices[index];
    std::string name = buffer_names_[buf];
    int64_t shift = 0;
    const auto [lo, hi] = range(ix);
    for (NamedSlice& slice : slices_[buf])
      if (lo >= slice.offset && hi < slice.offset + slice.size) {
        slice.used = true;
        name = slice.name;
        shift = slice.offset;
        break;
      }
    std::string i = index_text(ix, shift);
    if (!varying) return fmt::format("{}[{}]", name, i);
    if (i == "0") return name + "[l]";
    const bool compound = i.find(' ') != std::string::npos;
    return compound ? fmt::format("{}[({}) * L + l]", name, i)
                    : fmt::format("{}[{} * L + l]", name, i);
  }

  const Function& fn_;
  const KernelContext& ctx_;
  std::set<std::string> taken_;
  std::vector<std::string> scalar_names_, buffer_names_, var_names_, loop_names_;
  std::vector<std::vector<NamedSlice>> slices_;
  std::set<uint32_t> used_buffers_;
  std::set<size_t> used_scalars_;
  bool used_scratch_ = false;
  std::set<std::string> open_loops_;
  std::string pending_; // a scalar statement or lane sum, written after the open lane loop
  std::map<uint32_t, int> uses_;
  std::map<uint32_t, std::string> shared_;
};

} // namespace

std::string write_kernel(const Function& fn, const KernelContext& context) {
  return KernelWriter(fn, context).run();
}

std::string write_packed_entry(const Function& fn) {
  std::string s = fmt::format("extern \"C\" void {}__packed(const uint64_t* slots) {{\n  {}(",
                              fn.name, fn.name);
  for (size_t i = 0; i < fn.params.size(); ++i) {
    const Param& p = fn.params[i];
    if (i) s += ", ";
    if (p.kind == ParamKind::Scalar)
      s += fmt::format("std::bit_cast<double>(slots[{}])", i);
    else if (p.kind == ParamKind::Opaque ||
             (p.kind == ParamKind::Buffer && fn.buffers[p.buffer].readonly))
      s += fmt::format("std::bit_cast<const void*>(slots[{}])", i);
    else
      s += fmt::format("std::bit_cast<void*>(slots[{}])", i);
  }
  return s + ");\n}\n";
}

} // namespace plastic::backend::cpp::detail
