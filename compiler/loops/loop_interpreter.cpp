// Reference interpreter of the loop IR (loop_interpreter.h).
#include "compiler/loops/loop_interpreter.h"

#include <cstring>
#include <vector>

#include "compiler/loops/error.h"
#include "compiler/loops/loop_scalar_math.h"

namespace plastic::loops {

namespace {

class Interpreter {
public:
  Interpreter(const Function& fn, const Args& args) : fn_(fn), L_(fn.lanes) {
    PLASTIC_CHECK(args.size() == fn.params.size(), "interpret '{}': {} arguments for {} parameters",
                  fn.name, args.size(), fn.params.size());
    char* scratch = nullptr;
    for (size_t i = 0; i < fn.params.size(); ++i)
      if (fn.params[i].kind == ParamKind::Scratch) scratch = static_cast<char*>(args.pointer_at(i));
    if (!scratch && fn.scratch_bytes > 0) {
      own_scratch_.assign(static_cast<size_t>(fn.scratch_bytes), 0);
      scratch = own_scratch_.data();
    }
    base_.resize(fn.buffers.size(), nullptr);
    for (size_t b = 0; b < fn.buffers.size(); ++b) {
      const BufferDecl& d = fn.buffers[b];
      base_[b] = d.is_scratch() ? scratch + d.scratch_offset
                                : static_cast<char*>(args.pointer_at(d.param));
    }
    scalars_.resize(fn.params.size(), 0.0);
    for (size_t i = 0; i < fn.params.size(); ++i)
      if (fn.params[i].kind == ParamKind::Scalar) scalars_[i] = args.scalar_at(i);
    loop_value_.assign(fn.loops.size(), 0);
    vars_.assign(fn.vars.size() * L_, 0.0);
    cache_.assign(fn.exprs.size() * L_, 0.0);
    stamp_.assign(fn.exprs.size(), 0);
  }

  void run() { block(fn_.body); }

private:
  void block(const std::vector<Stmt>& body) {
    for (const Stmt& s : body) {
      switch (s.kind) {
      case StmtKind::Comment:
      case StmtKind::Prefetch: // a cache hint: nothing to evaluate
        break;
      case StmtKind::Loop: {
        const LoopDecl& l = fn_.loops[s.target];
        for (int64_t i = l.begin; i < l.end; ++i) {
          loop_value_[s.target] = i;
          block(s.body);
        }
        break;
      }
      case StmtKind::IfPresent:
        if (base_[s.target]) block(s.body);
        break;
      case StmtKind::Assign: {
        ++epoch_;
        const double* v = eval(s.value);
        std::copy(v, v + L_, &vars_[s.target * L_]);
        break;
      }
      case StmtKind::Store:
        store(s);
        break;
      }
    }
  }

  int64_t element(uint32_t buf, uint32_t index, int lane) const {
    const Index& ix = fn_.indices[index];
    int64_t e = ix.offset;
    for (const auto& t : ix.terms)
      e += t.stride * loop_value_[t.loop];
    const BufferDecl& d = fn_.buffers[buf];
    PLASTIC_CHECK(e >= 0 && e < d.size, "interpret '{}': index {} outside '{}'[{}]", fn_.name, e,
                  d.name, d.size);
    PLASTIC_CHECK(base_[buf], "interpret '{}': access to NULL buffer '{}'", fn_.name, d.name);
    return d.lanes == Lanes::Varying ? e * L_ + lane : e;
  }

  double read(uint32_t buf, int64_t e) const {
    if (fn_.type == ElemType::F32) return reinterpret_cast<const float*>(base_[buf])[e];
    return reinterpret_cast<const double*>(base_[buf])[e];
  }
  void write(uint32_t buf, int64_t e, double v) {
    if (fn_.type == ElemType::F32)
      reinterpret_cast<float*>(base_[buf])[e] = static_cast<float>(v);
    else
      reinterpret_cast<double*>(base_[buf])[e] = v;
  }

  void store(const Stmt& s) {
    ++epoch_;
    const double* v = eval(s.value);
    const BufferDecl& d = fn_.buffers[s.target];
    if (s.mode == StoreMode::AddLaneSum) {
      double sum = 0;
      for (int l = 0; l < L_; ++l)
        sum += v[l];
      const int64_t e = element(s.target, s.index, 0);
      write(s.target, e, read(s.target, e) + sum);
      return;
    }
    // A uniform buffer receives a uniform value: all lanes hold the same.
    const int n = d.lanes == Lanes::Varying ? L_ : 1;
    for (int l = 0; l < n; ++l) {
      const int64_t e = element(s.target, s.index, l);
      write(s.target, e, s.mode == StoreMode::Add ? read(s.target, e) + v[l] : v[l]);
    }
  }

  // Value of an expression in every lane, memoised for the current statement
  // (expressions are pure; memory and variables change only between them).
  const double* eval(uint32_t id) {
    double* out = &cache_[id * L_];
    if (stamp_[id] == epoch_) return out;
    const ExprNode& n = fn_.exprs[id];
    const double* a = n.arity() > 0 ? eval(n.args[0]) : nullptr;
    const double* b = n.arity() > 1 ? eval(n.args[1]) : nullptr;
    const double* c = n.arity() > 2 ? eval(n.args[2]) : nullptr;
    for (int l = 0; l < L_; ++l) {
      switch (n.kind) {
      case ExprKind::Const:
        out[l] = n.value;
        break;
      case ExprKind::ScalarParam:
        out[l] = scalars_[n.ref];
        break;
      case ExprKind::VarRef:
        out[l] = vars_[n.ref * L_ + l];
        break;
      case ExprKind::Load:
        out[l] = read(n.ref, element(n.ref, n.index, l));
        break;
      case ExprKind::Unary:
        out[l] = apply_unary<double>(n.unary_op(), a[l], n.value);
        break;
      case ExprKind::Binary:
        out[l] = apply_binary<double>(n.binary_op(), a[l], b[l]);
        break;
      case ExprKind::Fma:
        out[l] = std::fma(a[l], b[l], c[l]);
        break;
      case ExprKind::Compare:
        out[l] = apply_compare<double>(n.compare_op(), a[l], b[l]) ? 1.0 : 0.0;
        break;
      case ExprKind::Select:
        out[l] = a[l] != 0.0 ? b[l] : c[l];
        break;
      }
    }
    stamp_[id] = epoch_;
    return out;
  }

  const Function& fn_;
  const int L_;
  std::vector<char> own_scratch_;
  std::vector<char*> base_;
  std::vector<double> scalars_;
  std::vector<int64_t> loop_value_;
  std::vector<double> vars_;
  std::vector<double> cache_;
  std::vector<uint64_t> stamp_;
  uint64_t epoch_ = 0;
};

} // namespace

void interpret(const Function& fn, const Args& args) {
  Interpreter(fn, args).run();
}

} // namespace plastic::loops
