// A θ-gradient nest lowered as a GEMM over the lanes (lane_gemm.h).
#include "compiler/backend/llvm/lane_gemm.h"

#include <llvm/IR/Module.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <vector>

namespace plastic::backend::detail {

using namespace ::plastic::loops;
using llvm::Value;

namespace {

// Bytes of T, the transposed column factors of one chunk: a third of a 48 KiB
// L1 data cache, so that T, the rows' factors and U's lines stay in it.
constexpr int64_t kTransposeBudget = 16 * 1024;
// Column vectors per chunk, at most.
constexpr int64_t kMaxColumnVectors = 4;
// LaneGemm::Auto takes nests of at least this many multiply-adds (rows x
// columns x lanes; options.h, measured in bench/README).
constexpr int64_t kAutoMinWork = 32768;

// for (i = 0; i < n; ++i) body(i, values) at b's insertion point, n >= 1
// (a runtime value, or a constant: one iteration is emitted inline);
// `values` are carried from one iteration to the next and hold the last
// iteration's after the loop.
void counted_loop(llvm::IRBuilder<>& b, const char* name, Value* n, std::vector<Value*>& values,
                  const std::function<void(Value*, std::vector<Value*>&)>& body) {
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(n); c && c->isOne()) {
    body(b.getInt64(0), values);
    return;
  }
  llvm::Function* f = b.GetInsertBlock()->getParent();
  llvm::BasicBlock* pre = b.GetInsertBlock();
  auto* loop = llvm::BasicBlock::Create(b.getContext(), name, f);
  auto* exit = llvm::BasicBlock::Create(b.getContext(), std::string(name) + ".end", f);
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2, name);
  i->addIncoming(b.getInt64(0), pre);
  std::vector<llvm::PHINode*> phis;
  for (Value*& v : values) {
    llvm::PHINode* phi = b.CreatePHI(v->getType(), 2);
    phi->addIncoming(v, pre);
    phis.push_back(phi);
    v = phi;
  }
  body(i, values);
  Value* next = b.CreateAdd(i, b.getInt64(1), "", true, true);
  llvm::BasicBlock* latch = b.GetInsertBlock();
  b.CreateCondBr(b.CreateICmpSLT(next, n), loop, exit);
  i->addIncoming(next, latch);
  for (size_t k = 0; k < phis.size(); ++k)
    phis[k]->addIncoming(values[k], latch);
  b.SetInsertPoint(exit);
}

void counted_loop(llvm::IRBuilder<>& b, const char* name, Value* n,
                  const std::function<void(Value*)>& body) {
  std::vector<Value*> none;
  counted_loop(b, name, n, none, [&](Value* i, std::vector<Value*>&) { body(i); });
}

class GemmLowering {
public:
  GemmLowering(const Function& fn, const BilinearLaneSum& nest, LoweringContext& cx,
               int register_bytes)
      : fn_(fn), nest_(nest), cx_(cx), b_(cx.builder()), L_(fn.lanes),
        K_(static_cast<int64_t>(nest.terms.size())), columns_(nest.columns(fn)),
        rows_(nest.rows(fn)), vectors_((columns_ + L_ - 1) / L_) {
    T_ = fn.type == ElemType::F32 ? b_.getFloatTy() : b_.getDoubleTy();
    VT_ = llvm::FixedVectorType::get(T_, static_cast<unsigned>(L_));
    choose_blocking(register_bytes);
  }

  // Whether the nest has the shape the kernel takes: L a power of two of
  // at least 2, every row side one load of a varying buffer, it and U
  // affine in the flattened row.
  bool supported(LaneGemm when) const {
    if (L_ < 2 || (L_ & (L_ - 1)) != 0) return false;
    if (when == LaneGemm::Auto && (K_ != 1 || nest_.terms.front().col_factors.size() != 1 ||
                                   rows_ * columns_ * L_ < kAutoMinWork))
      return false;
    if (!nest_.row_stride(fn_, fn_.indices[nest_.store->index])) return false;
    for (const BilinearTerm& t : nest_.terms) {
      if (t.row_factors.size() != 1) return false;
      const ExprNode& n = fn_.exprs[t.row_factors.front()];
      if (n.kind != ExprKind::Load || fn_.buffers[n.ref].lanes != Lanes::Varying ||
          !nest_.row_stride(fn_, fn_.indices[n.index]))
        return false;
    }
    return true;
  }

  // Per chunk of C column vectors: the column sides transposed into T,
  // then every row block by the shared kernel. The last chunk may run past
  // the last column: its extra columns repeat the last one and are not
  // stored, so every chunk is the same code.
  void run() {
    allocate_buffers();
    stage_rows();
    Value* u = target_at_row_0();
    const int64_t u_stride = *nest_.row_stride(fn_, fn_.indices[nest_.store->index]);
    const int64_t chunks = ceil_div(vectors_, C_);
    counted_loop(b_, "gemm.chunk", i64(chunks), [&](Value* chunk) {
      Value* first = b_.CreateMul(chunk, i64(C_));
      transpose_columns(first);
      Value* column = b_.CreateMul(first, i64(L_));
      Value* valid = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, i64(C_ * L_),
                                              b_.CreateSub(i64(columns_), column));
      b_.CreateCall(gemm_kernel(), {transposed_, x_base_, x_stride_, i64(K_),
                                    b_.CreateGEP(T_, u, column), i64(u_stride), i64(rows_), valid});
    });
    for (uint32_t r : nest_.row_loops)
      cx_.set_loop(r, nullptr);
    cx_.set_loop(nest_.col_loop, nullptr);
  }

private:
  // C column vectors per chunk times R rows per block: R·C block elements
  // whose partial sums fit the vector registers, T within its L1 budget; of
  // those, the pair that takes the fewest cycles by a simple model — per
  // lane and term, R·C products and sums or C + R loads, two of either per
  // cycle — over the nest padded to whole chunks and blocks.
  void choose_blocking(int register_bytes) {
    const int64_t vector_bytes = L_ * elem_size(fn_.type);
    const int64_t registers = register_bytes >= 64 ? 32 : 16; // AVX-512 has 32, AVX 16
    const int64_t per_vector = std::max<int64_t>(1, vector_bytes / register_bytes);
    // A lane sum in halves keeps log2 L + 1 partial sums of each block
    // element live; those take about two thirds of the registers.
    int64_t depth = 1;
    for (int64_t w = L_; w > 1; w /= 2)
      ++depth;
    const int64_t accumulators = std::max<int64_t>(1, registers / per_vector * 2 / 3 / depth);
    const int64_t fits = std::max<int64_t>(1, kTransposeBudget / (K_ * L_ * vector_bytes));
    int64_t best = std::numeric_limits<int64_t>::max();
    for (int64_t c = 1; c <= std::min({kMaxColumnVectors, accumulators, fits}); ++c) {
      const int64_t r = std::min(accumulators / c, rows_);
      const int64_t cycles =
          ceil_div(vectors_, c) * ceil_div(rows_, r) * std::max(2 * r * c, c + r);
      if (cycles <= best) { // ties: the wider chunk, fewer broadcasts
        best = cycles;
        C_ = c;
        R_ = r;
      }
    }
  }
  static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

  // T ([K·L][C] vectors), S (L vectors: column sides evaluated for
  // transposing) and the terms' row-side bases and strides.
  void allocate_buffers() {
    llvm::BasicBlock& entry = b_.GetInsertBlock()->getParent()->getEntryBlock();
    llvm::IRBuilder<> at_entry(&entry, entry.begin());
    transposed_ = at_entry.CreateAlloca(T_, i64(K_ * L_ * C_ * L_), "gemm.T");
    transposed_->setAlignment(llvm::Align(64));
    staged_ = at_entry.CreateAlloca(T_, i64(L_ * L_), "gemm.S");
    staged_->setAlignment(llvm::Align(64));
    x_base_ = at_entry.CreateAlloca(b_.getPtrTy(), i64(K_), "gemm.X");
    x_stride_ = at_entry.CreateAlloca(b_.getInt64Ty(), i64(K_), "gemm.Xstride");
  }

  // x_base[k] = X_k at row 0 (lane 0); x_stride[k] = elements from one row
  // to the next; negated terms flip their sign in T instead.
  void stage_rows() {
    open_first_row();
    for (int64_t k = 0; k < K_; ++k) {
      const ExprNode& load = fn_.exprs[nest_.terms[static_cast<size_t>(k)].row_factors.front()];
      b_.CreateStore(cx_.address(load.ref, load.index),
                     b_.CreateInBoundsGEP(b_.getPtrTy(), x_base_, i64(k)));
      b_.CreateStore(i64(*nest_.row_stride(fn_, fn_.indices[load.index]) * L_),
                     b_.CreateInBoundsGEP(b_.getInt64Ty(), x_stride_, i64(k)));
    }
  }

  // U at row 0, column 0.
  Value* target_at_row_0() {
    open_first_row();
    cx_.set_loop(nest_.col_loop, i64(fn_.loops[nest_.col_loop].begin));
    return cx_.address(nest_.store->target, nest_.store->index);
  }

  void open_first_row() {
    for (uint32_t r : nest_.row_loops)
      cx_.set_loop(r, i64(fn_.loops[r].begin));
  }

  // T[k·L + l][j] = ±Y_k(the columns of vector first + j), lane l, by the
  // shared transposition kernel: straight from Y_k's buffer when Y_k is
  // one load of a varying buffer (the usual case: a layer's input), else
  // from the L column vectors evaluated into S.
  void transpose_columns(Value* first) {
    llvm::Function* transpose = transpose_kernel();
    const LoopDecl& col = fn_.loops[nest_.col_loop];
    counted_loop(b_, "gemm.transpose", i64(C_), [&](Value* j) {
      // A vector wholly past the last column reads the last column: its
      // address stays inside Y's buffer.
      Value* column = b_.CreateBinaryIntrinsic(
          llvm::Intrinsic::smin, b_.CreateMul(b_.CreateAdd(first, j), i64(L_)), i64(columns_ - 1));
      Value* valid = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, i64(L_),
                                              b_.CreateSub(i64(columns_), column));
      for (int64_t k = 0; k < K_; ++k) {
        const BilinearTerm& t = nest_.terms[static_cast<size_t>(k)];
        Value* dst = t_slot(i64(k * L_), j);
        Value* negate = i64(t.negate ? 1 : 0);
        if (const int64_t stride = direct_column_stride(t)) {
          cx_.set_loop(nest_.col_loop, b_.CreateAdd(column, i64(col.begin)));
          const ExprNode& load = fn_.exprs[t.col_factors.front()];
          b_.CreateCall(transpose, {cx_.address(load.ref, load.index), dst, i64(stride * L_),
                                    i64(C_ * L_), valid, negate});
          continue;
        }
        for (int64_t m = 0; m < L_; ++m) {
          Value* c = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b_.CreateAdd(column, i64(m)),
                                              i64(columns_ - 1));
          cx_.set_loop(nest_.col_loop, b_.CreateAdd(c, i64(col.begin)));
          b_.CreateAlignedStore(product(t.col_factors),
                                b_.CreateInBoundsGEP(T_, staged_, i64(m * L_)), vector_align());
        }
        b_.CreateCall(transpose, {staged_, dst, i64(L_), i64(C_ * L_), i64(L_), negate});
      }
    });
  }

  // The column loop's stride in Y's index when Y is one load of a varying
  // buffer, else 0.
  int64_t direct_column_stride(const BilinearTerm& t) const {
    if (t.col_factors.size() != 1) return 0;
    const ExprNode& n = fn_.exprs[t.col_factors.front()];
    if (n.kind != ExprKind::Load || fn_.buffers[n.ref].lanes != Lanes::Varying) return 0;
    for (const Index::Term& term : fn_.indices[n.index].terms)
      if (term.loop == nest_.col_loop) return term.stride;
    return 0;
  }

  Value* product(const std::vector<uint32_t>& factors) {
    Value* p = nullptr;
    for (uint32_t f : factors) {
      Value* v = cx_.varying(f);
      p = p ? b_.CreateFMul(p, v) : v;
    }
    return p;
  }

  // ---- the shared kernels ------------------------------------------------------

  // void transpose(const T* src, T* dst, i64 src_stride, i64 dst_stride,
  // i64 valid, i64 negate): dst[l*dst_stride + m] = ±src[min(m, valid - 1)
  // * src_stride + l] for an L x L block (source vectors past `valid` repeat
  // the last one), in registers: log2 L stages, stage s swapping bit s of
  // the row index with bit s of the lane index.
  llvm::Function* transpose_kernel() {
    return shared_kernel(
        fmt_name("transpose"), {2, 4}, [&](llvm::IRBuilder<>& b, llvm::Function* f) {
          Value *src = f->getArg(0), *src_stride = f->getArg(2),
                *last = b.CreateSub(f->getArg(4), i64(1));
          Value* negate = b.CreateICmpNE(f->getArg(5), i64(0));
          const llvm::Align align(static_cast<uint64_t>(elem_size(fn_.type)));
          std::vector<Value*> rows;
          for (int64_t m = 0; m < L_; ++m) {
            Value* at = b.CreateMul(b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, i64(m), last),
                                    src_stride);
            Value* v = b.CreateAlignedLoad(VT_, b.CreateInBoundsGEP(T_, src, at), align);
            rows.push_back(b.CreateSelect(negate, b.CreateFNeg(v), v));
          }
          for (int64_t s = 1; s < L_; s *= 2) {
            std::vector<int> lo, hi;
            for (int64_t j = 0; j < L_; ++j) {
              const bool low = (j & s) == 0;
              lo.push_back(static_cast<int>(low ? j : L_ + j - s));
              hi.push_back(static_cast<int>(low ? j + s : L_ + j));
            }
            std::vector<Value*> next(rows.size());
            for (int64_t i = 0; i < L_; ++i) {
              if ((i & s) != 0) continue;
              Value *a = rows[static_cast<size_t>(i)], *c = rows[static_cast<size_t>(i + s)];
              next[static_cast<size_t>(i)] = b.CreateShuffleVector(a, c, lo);
              next[static_cast<size_t>(i + s)] = b.CreateShuffleVector(a, c, hi);
            }
            rows = std::move(next);
          }
          for (int64_t l = 0; l < L_; ++l)
            b.CreateAlignedStore(
                rows[static_cast<size_t>(l)],
                b.CreateInBoundsGEP(T_, f->getArg(1), b.CreateMul(f->getArg(3), i64(l))),
                vector_align());
        });
  }

  // void gemm(const T* t, T* const* x, const i64* x_stride, i64 terms, T* u,
  //           i64 u_stride, i64 rows, i64 columns):
  // u[r*u_stride + c] += sum_k sum_l x[k][r*x_stride[k] + l] * t[k·L + l][c]
  // for r < rows, c < columns (at most C·L), R rows at a time; the rows of
  // the last block past `rows` repeat the last row and are not stored.
  //
  // Each term's sum over l is taken as the element-wise lowering takes a
  // lane sum — products rounded, then added in halves (lanes l and l + L/2,
  // and so on down to one; the C++ backend's lane_sum) — so that a nest of
  // one term gives the same bits either way: the C++ backend, which keeps
  // the element-wise form, then trains the same f32 runs. Terms add onto
  // -0, which changes no sum.
  llvm::Function* gemm_kernel() {
    const std::string name = fmt_name("gemm") + "." + std::to_string(R_) + "x" + std::to_string(C_);
    return shared_kernel(name, {3, 1, 1, 3}, [&](llvm::IRBuilder<>& b, llvm::Function* f) {
      Value *t = f->getArg(0), *xs = f->getArg(1), *strides = f->getArg(2), *terms = f->getArg(3);
      Value* rows = f->getArg(6);
      Value* blocks = b.CreateUDiv(b.CreateAdd(rows, i64(R_ - 1)), i64(R_));
      counted_loop(b, "blocks", blocks, [&](Value* block) {
        Value* first = b.CreateMul(block, i64(R_));
        std::vector<Value*> row; // the block's rows, past the last one the last one
        row.reserve(static_cast<size_t>(R_));
        for (int64_t r = 0; r < R_; ++r)
          row.push_back(b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b.CreateAdd(first, i64(r)),
                                                b.CreateSub(rows, i64(1))));
        std::vector<Value*> acc(static_cast<size_t>(R_ * C_), llvm::ConstantFP::get(VT_, -0.0));
        counted_loop(b, "terms", terms, acc, [&](Value* k, std::vector<Value*>& sums) {
          Value* base = b.CreateLoad(b.getPtrTy(), b.CreateInBoundsGEP(b.getPtrTy(), xs, k));
          Value* stride =
              b.CreateLoad(b.getInt64Ty(), b.CreateInBoundsGEP(b.getInt64Ty(), strides, k));
          std::vector<Value*> x;
          x.reserve(static_cast<size_t>(R_));
          for (int64_t r = 0; r < R_; ++r)
            x.push_back(
                b.CreateInBoundsGEP(T_, base, b.CreateMul(row[static_cast<size_t>(r)], stride)));
          Value* tk = b.CreateInBoundsGEP(T_, t, b.CreateMul(k, i64(L_ * C_ * L_)));
          for (int64_t r = 0; r < R_; ++r)
            for (int64_t j = 0; j < C_; ++j) {
              Value*& a = sums[static_cast<size_t>(r * C_ + j)];
              a = b.CreateFAdd(a, lane_sum(b, x[static_cast<size_t>(r)], tk, j));
            }
        });
        add_sums(b, f, first, acc);
      });
    });
  }

  // sum_l x[l] * t[l][j] in the halving order: the value at position l of
  // width w is the sum of positions l and l + w of width 2w; at width L,
  // the product for lane l. Neither product nor sum is fused or reordered.
  Value* lane_sum(llvm::IRBuilder<>& b, Value* x, Value* t, int64_t j) {
    llvm::IRBuilder<>::FastMathFlagGuard exact(b);
    b.clearFastMathFlags();
    std::function<Value*(int64_t, int64_t)> at = [&](int64_t width, int64_t l) -> Value* {
      if (width == L_) {
        Value* xl = b.CreateLoad(T_, b.CreateInBoundsGEP(T_, x, i64(l)));
        Value* tl = b.CreateAlignedLoad(VT_, b.CreateInBoundsGEP(T_, t, i64((l * C_ + j) * L_)),
                                        vector_align());
        return b.CreateFMul(b.CreateVectorSplat(static_cast<unsigned>(L_), xl), tl);
      }
      return b.CreateFAdd(at(2 * width, l), at(2 * width, l + width));
    };
    return at(1, 0);
  }

  // The gemm kernel's block end: u[row] += the sums of each row that
  // exists, masked to the columns that exist (a loop over the R·C vectors,
  // staged on the stack: one masked access each, short to compile).
  void add_sums(llvm::IRBuilder<>& b, llvm::Function* f, Value* first,
                const std::vector<Value*>& acc) {
    Value *u = f->getArg(4), *u_stride = f->getArg(5), *rows = f->getArg(6),
          *columns = f->getArg(7);
    llvm::BasicBlock& entry = f->getEntryBlock();
    llvm::IRBuilder<> at_entry(&entry, entry.begin());
    llvm::AllocaInst* sums = at_entry.CreateAlloca(T_, i64(R_ * C_ * L_), "sums");
    sums->setAlignment(llvm::Align(64));
    for (int64_t i = 0; i < R_ * C_; ++i)
      b.CreateAlignedStore(acc[static_cast<size_t>(i)], b.CreateInBoundsGEP(T_, sums, i64(i * L_)),
                           vector_align());
    const auto n = static_cast<unsigned>(L_);
    std::vector<llvm::Constant*> lane;
    lane.reserve(static_cast<size_t>(L_));
    for (int64_t m = 0; m < L_; ++m)
      lane.push_back(b.getInt64(static_cast<uint64_t>(m)));
    Value* iota = llvm::ConstantVector::get(lane);
    const llvm::Align align(static_cast<uint64_t>(elem_size(fn_.type)));
    Value* valid_rows =
        b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, i64(R_), b.CreateSub(rows, first));
    counted_loop(b, "store.rows", valid_rows, [&](Value* r) {
      Value* row = b.CreateGEP(T_, u, b.CreateMul(b.CreateAdd(first, r), u_stride));
      counted_loop(b, "store.vectors", i64(C_), [&](Value* j) {
        Value* column = b.CreateMul(j, i64(L_));
        Value* mask = b.CreateICmpSLT(b.CreateAdd(iota, b.CreateVectorSplat(n, column)),
                                      b.CreateVectorSplat(n, columns));
        Value* ptr = b.CreateGEP(T_, row, column); // past U's end when masked off
        Value* sum = b.CreateAlignedLoad(
            VT_,
            b.CreateInBoundsGEP(T_, sums,
                                b.CreateMul(b.CreateAdd(b.CreateMul(r, i64(C_)), j), i64(L_))),
            vector_align());
        Value* old = b.CreateMaskedLoad(VT_, ptr, align, mask, zero_vector());
        b.CreateMaskedStore(b.CreateFAdd(old, sum), ptr, align, mask);
      });
    });
  }

  // "plastic.gemm.<what>.f32x16": one per module, element type and width.
  std::string fmt_name(const char* what) const {
    return std::string("plastic.gemm.") + what + "." + std::string(elem_type_name(fn_.type)) + "x" +
           std::to_string(L_);
  }

  // The module's internal function `name` with arguments of the kinds
  // `shape` lists in runs (pointers, i64s, pointers, ...), made by `body`
  // the first time: compiled once and called by every nest, so that a
  // kernel's compile time grows little with its number of nests.
  llvm::Function*
  shared_kernel(const std::string& name, std::initializer_list<unsigned> shape,
                const std::function<void(llvm::IRBuilder<>&, llvm::Function*)>& body) {
    llvm::Function* caller = b_.GetInsertBlock()->getParent();
    llvm::Module& mod = *caller->getParent();
    if (llvm::Function* f = mod.getFunction(name)) return f;
    std::vector<llvm::Type*> types;
    bool pointers = true;
    for (unsigned run : shape) {
      types.insert(types.end(), run,
                   pointers ? static_cast<llvm::Type*>(b_.getPtrTy()) : b_.getInt64Ty());
      pointers = !pointers;
    }
    auto* f = llvm::Function::Create(llvm::FunctionType::get(b_.getVoidTy(), types, false),
                                     llvm::Function::InternalLinkage, name, mod);
    for (const char* attr : {"target-cpu", "target-features", "min-legal-vector-width"})
      if (caller->hasFnAttribute(attr)) f->addFnAttr(caller->getFnAttribute(attr));
    f->setDoesNotThrow();
    f->addFnAttr(llvm::Attribute::NoInline);
    for (unsigned i = 0; i < types.size(); ++i)
      if (types[i]->isPointerTy()) f->addParamAttr(i, llvm::Attribute::NoCapture);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(mod.getContext(), "entry", f));
    b.setFastMathFlags(b_.getFastMathFlags());
    body(b, f);
    b.CreateRetVoid();
    return f;
  }

  // ---- helpers ---------------------------------------------------------------

  // T[q][j] (q = k·L + l).
  Value* t_slot(Value* q, Value* j) {
    return b_.CreateInBoundsGEP(T_, transposed_,
                                b_.CreateMul(b_.CreateAdd(b_.CreateMul(q, i64(C_)), j), i64(L_)));
  }
  llvm::Align vector_align() const {
    return llvm::Align(std::min<uint64_t>(64, static_cast<uint64_t>(L_ * elem_size(fn_.type))));
  }

  Value* zero_vector() { return llvm::ConstantFP::get(VT_, 0.0); }
  Value* i64(int64_t v) { return b_.getInt64(static_cast<uint64_t>(v)); }

  const Function& fn_;
  const BilinearLaneSum& nest_;
  LoweringContext& cx_;
  llvm::IRBuilder<>& b_;
  const int64_t L_, K_, columns_, rows_,
      vectors_;           // vectors_: column vectors, the last maybe partial
  int64_t C_ = 1, R_ = 1; // column vectors per chunk, rows per block
  llvm::Type* T_ = nullptr;
  llvm::FixedVectorType* VT_ = nullptr;
  llvm::AllocaInst* transposed_ = nullptr; // T: [K·L][C] vectors
  llvm::AllocaInst* staged_ = nullptr;     // S: L vectors, column sides to transpose
  llvm::AllocaInst* x_base_ = nullptr;     // K pointers: X_k at row 0
  llvm::AllocaInst* x_stride_ = nullptr;   // K i64s: X_k's elements per row
};

} // namespace

bool lower_lane_gemm(const Function& fn, const BilinearLaneSum& nest, LoweringContext& cx,
                     int register_bytes, LaneGemm when) {
  GemmLowering gemm(fn, nest, cx, register_bytes);
  if (!gemm.supported(when)) return false;
  gemm.run();
  return true;
}

} // namespace plastic::backend::detail
