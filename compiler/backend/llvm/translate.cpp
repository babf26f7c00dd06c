// Loop IR -> LLVM IR (lower.h).
#include "compiler/backend/llvm/translate.h"

#include <optional>
#include <unordered_map>

#include <llvm/IR/DataLayout.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "compiler/backend/llvm/lane_gemm.h"
#include "compiler/backend/llvm/vector_math.h"
#include "compiler/loops/bilinear.h"
#include "compiler/loops/error.h"
#include "compiler/loops/loop_verifier.h"

namespace plastic::backend::detail {

using namespace ::plastic::loops;

namespace {

using llvm::Value;

class FunctionLowering final : public LoweringContext {
public:
  FunctionLowering(const Function& fn, llvm::Module& mod, const TargetSpec& target,
                   const CompileOptions& opts, int register_bytes)
      : fn_(fn), mod_(mod), ctx_(mod.getContext()), b_(ctx_), opts_(opts), target_(target),
        register_bytes_(register_bytes) {
    T_ = fn.type == ElemType::F32 ? b_.getFloatTy() : b_.getDoubleTy();
    VT_ = llvm::FixedVectorType::get(T_, static_cast<unsigned>(fn.lanes));
    llvm::FastMathFlags fmf;
    fmf.setAllowContract(opts.contract);
    b_.setFastMathFlags(fmf);
  }

  llvm::Function* run() {
    declare();
    auto* entry = llvm::BasicBlock::Create(ctx_, "entry", F_);
    b_.SetInsertPoint(entry);
    prologue();
    block(fn_.body);
    b_.CreateRetVoid();
    return F_;
  }

private:
  // ---- signature and prologue -------------------------------------------------------

  void declare() {
    std::vector<llvm::Type*> types;
    types.reserve(fn_.params.size());
    for (const Param& p : fn_.params)
      types.push_back(p.kind == ParamKind::Scalar ? b_.getDoubleTy() : b_.getPtrTy());
    auto* ft = llvm::FunctionType::get(b_.getVoidTy(), types, false);
    F_ = llvm::Function::Create(ft, llvm::Function::ExternalLinkage, fn_.name, mod_);
    F_->setDoesNotThrow();
    F_->addFnAttr("target-cpu", target_.cpu);
    if (!target_.features.empty()) F_->addFnAttr("target-features", target_.features);
    // Explicit vectors of this width must not be split by a narrower
    // preferred width (e.g. <16 x float> on an AVX-512 host).
    F_->addFnAttr("min-legal-vector-width", std::to_string(fn_.lanes * elem_size(fn_.type) * 8));
    for (unsigned i = 0; i < fn_.params.size(); ++i) {
      const Param& p = fn_.params[i];
      F_->getArg(i)->setName(p.name);
      if (p.kind == ParamKind::Scalar || p.kind == ParamKind::Opaque) continue;
      F_->addParamAttr(i, llvm::Attribute::NoCapture);
      if (p.kind == ParamKind::Scratch) {
        F_->addParamAttr(i, llvm::Attribute::NoAlias);
        F_->addParamAttr(i, llvm::Attribute::getWithAlignment(ctx_, llvm::Align(64)));
        if (fn_.scratch_bytes > 0)
          F_->addParamAttr(i,
                           llvm::Attribute::getWithDereferenceableBytes(ctx_, fn_.scratch_bytes));
        continue;
      }
      const BufferDecl& d = fn_.buffers[p.buffer];
      if (d.noalias) F_->addParamAttr(i, llvm::Attribute::NoAlias);
      if (d.readonly) F_->addParamAttr(i, llvm::Attribute::ReadOnly);
      const uint64_t bytes = static_cast<uint64_t>(fn_.elements(d) * elem_size(fn_.type));
      F_->addParamAttr(i, d.nullable
                              ? llvm::Attribute::getWithDereferenceableOrNullBytes(ctx_, bytes)
                              : llvm::Attribute::getWithDereferenceableBytes(ctx_, bytes));
    }
  }

  void prologue() {
    Value* scratch = nullptr;
    for (unsigned i = 0; i < fn_.params.size(); ++i)
      if (fn_.params[i].kind == ParamKind::Scratch) scratch = F_->getArg(i);
    scalar_.assign(fn_.params.size(), nullptr);
    for (unsigned i = 0; i < fn_.params.size(); ++i)
      if (fn_.params[i].kind == ParamKind::Scalar)
        scalar_[i] =
            fn_.type == ElemType::F32 ? b_.CreateFPTrunc(F_->getArg(i), T_) : F_->getArg(i);
    for (const BufferDecl& d : fn_.buffers) {
      base_.push_back(d.is_scratch() ? b_.CreateConstInBoundsGEP1_64(
                                           b_.getInt8Ty(), scratch,
                                           static_cast<uint64_t>(d.scratch_offset), d.name)
                                     : static_cast<Value*>(F_->getArg(d.param)));
      // Scratch buffers sit at 64-byte offsets of a 64-byte aligned arena.
      const int vec_bytes = (d.lanes == Lanes::Varying ? fn_.lanes : 1) * elem_size(fn_.type);
      int align = elem_size(fn_.type);
      if (d.is_scratch())
        while (align < 64 && vec_bytes % (align * 2) == 0)
          align *= 2;
      align_.push_back(align);
    }
    for (const VarDecl& v : fn_.vars)
      slot_.push_back(b_.CreateAlloca(type_of(v.lanes), nullptr, v.name));
    iv_.assign(fn_.loops.size(), nullptr);
  }

  llvm::Type* type_of(Lanes l) const {
    return l == Lanes::Varying ? static_cast<llvm::Type*>(VT_) : T_;
  }

  // ---- statements -----------------------------------------------------------------

  void block(const std::vector<Stmt>& body) {
    for (const Stmt& s : body) {
      memo_.clear(); // expressions are evaluated afresh by each statement
      switch (s.kind) {
      case StmtKind::Comment:
        break;
      case StmtKind::Loop:
        loop(s);
        break;
      case StmtKind::IfPresent:
        if_present(s);
        break;
      case StmtKind::Assign: {
        const Lanes l = fn_.vars[s.target].lanes;
        b_.CreateStore(widen(expr(s.value), l), slot_[s.target]);
        break;
      }
      case StmtKind::Store:
        store(s);
        break;
      case StmtKind::Prefetch: // read, keep in every cache level, data
        b_.CreateIntrinsic(
            llvm::Intrinsic::prefetch, {b_.getPtrTy()},
            {address(s.target, s.index), b_.getInt32(0), b_.getInt32(3), b_.getInt32(1)});
        break;
      }
    }
  }

  // A bottom-tested loop: the verifier guarantees a non-empty range.
  void loop(const Stmt& s) {
    if (lane_gemm(s) || lane_sum_blocks(s)) return;
    const LoopDecl& l = fn_.loops[s.target];
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    auto* body = llvm::BasicBlock::Create(ctx_, l.name, F_);
    auto* exit = llvm::BasicBlock::Create(ctx_, l.name + ".end", F_);
    b_.CreateBr(body);
    b_.SetInsertPoint(body);
    llvm::PHINode* iv = b_.CreatePHI(b_.getInt64Ty(), 2, l.name);
    iv->addIncoming(b_.getInt64(static_cast<uint64_t>(l.begin)), pre);
    iv_[s.target] = iv;
    block(s.body);
    Value* next =
        b_.CreateAdd(iv, b_.getInt64(1), l.name + ".next", false, true); // bounds may be negative
    b_.CreateCondBr(b_.CreateICmpSLT(next, b_.getInt64(static_cast<uint64_t>(l.end))), body, exit);
    iv->addIncoming(next, b_.GetInsertBlock());
    b_.SetInsertPoint(exit);
    iv_[s.target] = nullptr;
  }

  // ---- θ gradients: GEMMs over the lanes, blocked lane sums -------------------------

  // A nest `U[r, c] += lanesum(sum_k ± X_k(r) Y_k(c))` (lane_gemm.h).
  bool lane_gemm(const Stmt& s) {
    const std::optional<BilinearLaneSum> nest = match_bilinear_lane_sum(fn_, s);
    if (!nest || !lower_lane_gemm(fn_, *nest, *this, register_bytes_, opts_.lane_gemm))
      return false;
    memo_.clear();
    return true;
  }

  // LoweringContext, for lane_gemm.h.
  llvm::IRBuilder<>& builder() override { return b_; }
  void set_loop(uint32_t loop, Value* iv) override {
    iv_[loop] = iv;
    memo_.clear();
  }
  Value* varying(uint32_t e) override { return widen(expr(e), Lanes::Varying); }

  // A θ gradient is a loop `for i { U[c + i] += lanesum(v(i)) }` over a
  // weight row: one horizontal reduction of L lanes and one scalar
  // read-modify-write per element. Lowered as written, the reductions took
  // a quarter of the speech Delta CDE's step VJP. Here L consecutive
  // elements are done together: v(i), ..., v(i+L-1) are evaluated, their L
  // lane sums formed at once by a transpose-and-add tree (log2 L levels of
  // shuffles, L-1 vector adds in all, no scalar work), and added to
  // U[c+i .. c+i+L) as one vector. Each element's sum adds its lanes in
  // the same halving order as the reduction it replaces. The remainder
  // (n mod L elements) takes the ordinary path.
  bool lane_sum_blocks(const Stmt& s) {
    const int64_t L = fn_.lanes;
    if (L < 2 || (L & (L - 1)) != 0) return false;
    const Stmt* st = nullptr;
    for (const Stmt& x : s.body) {
      if (x.kind == StmtKind::Comment) continue;
      if (st || x.kind != StmtKind::Store || x.mode != StoreMode::AddLaneSum) return false;
      st = &x;
    }
    if (!st || fn_.exprs[st->value].lanes != Lanes::Varying ||
        expr_reads(fn_, st->value, st->target))
      return false;
    const Index& ix = fn_.indices[st->index];
    bool unit = false;
    for (const auto& t : ix.terms)
      if (t.loop == s.target) unit = t.stride == 1;
    const LoopDecl& l = fn_.loops[s.target];
    const int64_t blocks = (l.end - l.begin) / L;
    if (!unit || blocks < 1) return false;

    llvm::BasicBlock* pre = b_.GetInsertBlock();
    auto* body = llvm::BasicBlock::Create(ctx_, l.name + ".lanesum", F_);
    auto* exit = llvm::BasicBlock::Create(ctx_, l.name + ".lanesum.end", F_);
    b_.CreateBr(body);
    b_.SetInsertPoint(body);
    llvm::PHINode* block = b_.CreatePHI(b_.getInt64Ty(), 2, l.name + ".block");
    block->addIncoming(b_.getInt64(0), pre);
    Value* first = b_.CreateAdd(b_.CreateMul(block, b_.getInt64(static_cast<uint64_t>(L))),
                                b_.getInt64(static_cast<uint64_t>(l.begin)), "", false, true);
    std::vector<Value*> rows;
    for (int64_t r = 0; r < L; ++r) {
      memo_.clear();
      iv_[s.target] = b_.CreateAdd(first, b_.getInt64(static_cast<uint64_t>(r)), "", false, true);
      rows.push_back(widen(expr(st->value), Lanes::Varying));
    }
    memo_.clear();
    iv_[s.target] = first;
    Value* ptr = address(st->target, st->index);
    const llvm::Align align(align_[st->target]);
    Value* sums = transpose_sum(std::move(rows));
    b_.CreateAlignedStore(b_.CreateFAdd(b_.CreateAlignedLoad(VT_, ptr, align), sums), ptr, align);
    Value* next = b_.CreateAdd(block, b_.getInt64(1), "", false, true);
    b_.CreateCondBr(b_.CreateICmpSLT(next, b_.getInt64(static_cast<uint64_t>(blocks))), body, exit);
    block->addIncoming(next, b_.GetInsertBlock());
    b_.SetInsertPoint(exit);
    // The remainder, element by element (fewer than L).
    for (int64_t i = l.begin + blocks * L; i < l.end; ++i) {
      memo_.clear();
      iv_[s.target] = b_.getInt64(static_cast<uint64_t>(i));
      store(*st);
    }
    memo_.clear();
    iv_[s.target] = nullptr;
    return true;
  }

  // rows[r] (L lanes each) -> the vector whose lane r is the sum of rows[r]'s
  // lanes. Each level pairs vectors that hold g rows of width w and adds the
  // low and high halves of every row: 2g rows of width w/2 per vector.
  Value* transpose_sum(std::vector<Value*> rows) {
    const int L = fn_.lanes;
    for (int w = L; w > 1; w /= 2) {
      const int g = L / w; // rows per vector at this level
      std::vector<Value*> next;
      for (size_t k = 0; k + 1 < rows.size(); k += 2) {
        std::vector<int> lo, hi;
        for (int side = 0; side < 2; ++side) // x = rows[k] (0..L), y = rows[k+1] (L..2L)
          for (int j = 0; j < g; ++j)
            for (int e = 0; e < w / 2; ++e) {
              lo.push_back(side * L + j * w + e);
              hi.push_back(side * L + j * w + w / 2 + e);
            }
        next.push_back(b_.CreateFAdd(b_.CreateShuffleVector(rows[k], rows[k + 1], lo),
                                     b_.CreateShuffleVector(rows[k], rows[k + 1], hi)));
      }
      rows = std::move(next);
    }
    return rows.front();
  }

  void if_present(const Stmt& s) {
    auto* then = llvm::BasicBlock::Create(ctx_, fn_.buffers[s.target].name + ".present", F_);
    auto* cont = llvm::BasicBlock::Create(ctx_, fn_.buffers[s.target].name + ".done", F_);
    b_.CreateCondBr(b_.CreateIsNotNull(base_[s.target]), then, cont);
    b_.SetInsertPoint(then);
    block(s.body);
    b_.CreateBr(cont);
    b_.SetInsertPoint(cont);
  }

  void store(const Stmt& s) {
    const BufferDecl& d = fn_.buffers[s.target];
    Value* v = expr(s.value);
    Value* ptr = address(s.target, s.index);
    const llvm::Align align(align_[s.target]);
    llvm::Type* ty = type_of(d.lanes);
    if (s.mode == StoreMode::AddLaneSum) {
      Value* sum;
      if (v->getType()->isVectorTy()) {
        // Tree reduction; the start value -0.0 is the identity of fadd.
        llvm::CallInst* red = b_.CreateFAddReduce(llvm::ConstantFP::getNegativeZero(T_), v);
        llvm::FastMathFlags fmf = b_.getFastMathFlags();
        fmf.setAllowReassoc(true);
        red->setFastMathFlags(fmf);
        sum = red;
      } else {
        sum = b_.CreateFMul(v, llvm::ConstantFP::get(T_, fn_.lanes)); // L equal lanes
      }
      b_.CreateAlignedStore(b_.CreateFAdd(b_.CreateAlignedLoad(T_, ptr, align), sum), ptr, align);
      return;
    }
    v = widen(v, d.lanes);
    if (s.mode == StoreMode::Add) v = b_.CreateFAdd(b_.CreateAlignedLoad(ty, ptr, align), v);
    b_.CreateAlignedStore(v, ptr, align);
  }

  // Address of buf[index]: element offset * L for varying buffers.
  Value* address(uint32_t buf, uint32_t index) override {
    const Index& ix = fn_.indices[index];
    const int64_t scale = fn_.buffers[buf].lanes == Lanes::Varying ? fn_.lanes : 1;
    Value* off = b_.getInt64(static_cast<uint64_t>(ix.offset * scale));
    for (const auto& t : ix.terms) {
      Value* iv = iv_[t.loop];
      PLASTIC_CHECK(iv, "lowering '{}': loop variable used outside its loop", fn_.name);
      // nsw only: strides may be negative (the verifier bounds the result).
      off = b_.CreateAdd(
          off,
          b_.CreateMul(iv, b_.getInt64(static_cast<uint64_t>(t.stride * scale)), "", false, true),
          "", false, true);
    }
    return b_.CreateInBoundsGEP(T_, base_[buf], off);
  }

  // ---- expressions ---------------------------------------------------------------

  // Broadcasts a scalar to L lanes when the destination is varying.
  Value* widen(Value* v, Lanes to) {
    if (to == Lanes::Varying && !v->getType()->isVectorTy())
      return b_.CreateVectorSplat(fn_.lanes, v);
    return v;
  }

  Value* expr(uint32_t id) {
    auto it = memo_.find(id);
    if (it != memo_.end()) return it->second;
    Value* v = expr_uncached(fn_.exprs[id]);
    memo_.emplace(id, v);
    return v;
  }

  Value* expr_uncached(const ExprNode& n) {
    auto arg = [&](int k) { return widen(expr(n.args[k]), n.lanes); };
    switch (n.kind) {
    case ExprKind::Const:
      return llvm::ConstantFP::get(T_, n.value);
    case ExprKind::ScalarParam:
      return scalar_[n.ref];
    case ExprKind::VarRef:
      return b_.CreateLoad(type_of(n.lanes), slot_[n.ref], fn_.vars[n.ref].name);
    case ExprKind::Load:
      return b_.CreateAlignedLoad(type_of(n.lanes), address(n.ref, n.index),
                                  llvm::Align(align_[n.ref]), fn_.buffers[n.ref].name);
    case ExprKind::Unary:
      return unary(n.unary_op(), arg(0), n.value);
    case ExprKind::Binary:
      return binary(n.binary_op(), arg(0), arg(1));
    case ExprKind::Fma:
      return b_.CreateIntrinsic(llvm::Intrinsic::fmuladd, {type_of(n.lanes)},
                                {arg(0), arg(1), arg(2)});
    case ExprKind::Compare:
      return compare(n.compare_op(), arg(0), arg(1));
    case ExprKind::Select: {
      // A uniform mask selects whole vectors; a varying one selects per lane.
      Value* mask = expr(n.args[0]);
      return b_.CreateSelect(mask, arg(1), arg(2));
    }
    }
    PLASTIC_CHECK(false, "lowering '{}': unknown expression kind", fn_.name);
    return nullptr;
  }

  Value* zero(Value* like) { return llvm::ConstantFP::get(like->getType(), 0.0); }
  Value* one(Value* like) { return llvm::ConstantFP::get(like->getType(), 1.0); }

  Value* unary(UnaryOp op, Value* x, double attr) {
    switch (op) {
    case UnaryOp::Neg:
      return b_.CreateFNeg(x);
    case UnaryOp::Abs:
      return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
    case UnaryOp::Square:
      return b_.CreateFMul(x, x);
    case UnaryOp::Reciprocal:
      return b_.CreateFDiv(one(x), x);
    case UnaryOp::Sqrt:
      return b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
    case UnaryOp::Relu:
      return b_.CreateSelect(b_.CreateFCmpOGT(x, zero(x)), x, zero(x));
    case UnaryOp::Step:
      return b_.CreateSelect(b_.CreateFCmpOGT(x, zero(x)), one(x), zero(x));
    case UnaryOp::Sign: {
      Value* neg = b_.CreateSelect(b_.CreateFCmpOLT(x, zero(x)),
                                   llvm::ConstantFP::get(x->getType(), -1.0), zero(x));
      return b_.CreateSelect(b_.CreateFCmpOGT(x, zero(x)), one(x), neg);
    }
    default:
      return emit_math(b_, op, x, attr, opts_.math);
    }
  }

  Value* binary(BinaryOp op, Value* a, Value* c) {
    switch (op) {
    case BinaryOp::Add:
      return b_.CreateFAdd(a, c);
    case BinaryOp::Sub:
      return b_.CreateFSub(a, c);
    case BinaryOp::Mul:
      return b_.CreateFMul(a, c);
    case BinaryOp::Div:
      return b_.CreateFDiv(a, c);
    case BinaryOp::Min:
    case BinaryOp::Max: {
      // NaN-propagating: (a or c NaN) ? a + c : (a < c ? a : c). The inner
      // select is x86's minps/maxps pattern.
      Value* pick = op == BinaryOp::Min ? b_.CreateFCmpOLT(a, c) : b_.CreateFCmpOGT(a, c);
      return b_.CreateSelect(b_.CreateFCmpUNO(a, c), b_.CreateFAdd(a, c),
                             b_.CreateSelect(pick, a, c));
    }
    }
    return nullptr;
  }

  Value* compare(CompareOp op, Value* a, Value* c) {
    switch (op) {
    case CompareOp::Lt:
      return b_.CreateFCmpOLT(a, c);
    case CompareOp::Le:
      return b_.CreateFCmpOLE(a, c);
    case CompareOp::Gt:
      return b_.CreateFCmpOGT(a, c);
    case CompareOp::Ge:
      return b_.CreateFCmpOGE(a, c);
    case CompareOp::Eq:
      return b_.CreateFCmpOEQ(a, c);
    case CompareOp::Ne:
      return b_.CreateFCmpUNE(a, c);
    }
    return nullptr;
  }

  const Function& fn_;
  llvm::Module& mod_;
  llvm::LLVMContext& ctx_;
  llvm::IRBuilder<> b_;
  const CompileOptions& opts_;
  const TargetSpec& target_;
  const int register_bytes_;
  llvm::Type* T_ = nullptr;
  llvm::FixedVectorType* VT_ = nullptr;
  llvm::Function* F_ = nullptr;
  std::vector<Value*> scalar_;          // per parameter (scalars only), converted to T
  std::vector<Value*> base_;            // per buffer
  std::vector<int> align_;              // per buffer: alignment of one access, bytes
  std::vector<llvm::AllocaInst*> slot_; // per variable
  std::vector<Value*> iv_;              // per loop: its induction variable while open
  std::unordered_map<uint32_t, Value*> memo_;
};

// `<name>__packed(const uint64_t* slots)`: unpacks one slot per parameter and
// calls the kernel (not inlined: one copy of the kernel body).
void add_packed_entry(llvm::Function* kernel, const Function& fn, llvm::Module& mod) {
  llvm::LLVMContext& ctx = mod.getContext();
  llvm::IRBuilder<> b(ctx);
  auto* ft = llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy()}, false);
  auto* f = llvm::Function::Create(ft, llvm::Function::ExternalLinkage, fn.name + "__packed", mod);
  f->setDoesNotThrow();
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", f));
  std::vector<Value*> args;
  for (unsigned i = 0; i < fn.params.size(); ++i) {
    Value* slot = b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), f->getArg(0), i);
    if (fn.params[i].kind == ParamKind::Scalar)
      args.push_back(b.CreateLoad(b.getDoubleTy(), slot));
    else
      args.push_back(b.CreateLoad(b.getPtrTy(), slot));
  }
  llvm::CallInst* call = b.CreateCall(kernel, args);
  call->setIsNoInline();
  b.CreateRetVoid();
}

} // namespace

std::unique_ptr<llvm::Module> lower_module(const Module& module, llvm::LLVMContext& ctx,
                                           const TargetSpec& target, const llvm::DataLayout& layout,
                                           const CompileOptions& options) {
  verify_or_throw(module);
  auto mod = std::make_unique<llvm::Module>(module.name.empty() ? "plastic" : module.name, ctx);
  mod->setTargetTriple(target.triple);
  mod->setDataLayout(layout);
  const int register_bytes = vector_register_bytes(target);
  for (const Function& fn : module.functions) {
    llvm::Function* f = FunctionLowering(fn, *mod, target, options, register_bytes).run();
    if (options.packed_entries) add_packed_entry(f, fn, *mod);
  }
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(*mod, &os))
    PLASTIC_CHECK(false, "LLVM IR of module '{}' fails verification:\n{}", module.name, os.str());
  return mod;
}

} // namespace plastic::backend::detail
