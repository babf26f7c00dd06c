// AOT objects of a model: the kernels plus the plastic_model table as LLVM
// constants and the exported entry `plastic_model_v1` (see compiled_model.h
// for why constants rather than generated C).
//
// The LLVM struct types below mirror runtime/abi.h field by field (the
// kernel structs member by member from runtime/abi_kernels.def); before
// anything is emitted, every field offset and struct size the target's
// DataLayout gives is compared with offsetof/sizeof of the C structs this
// compiler was built with, so a change of abi.h that is not mirrored here is
// an InternalError, never a silently wrong table.
#include <chrono>
#include <cstddef>
#include <fstream>

#include <fmt/format.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "compiler/abi/table.h"
#include "compiler/backend/compiled_model.h"
#include "compiler/backend/llvm/target.h"
#include "compiler/backend/llvm/translate.h"
#include "compiler/loops/c_header.h"
#include "compiler/loops/error.h"

namespace plastic::backend {

using namespace ::plastic::loops;
using namespace ::plastic::abi;

namespace {

using llvm::Constant;
using llvm::StructType;
using llvm::Type;

struct Types {
  Type *i32, *i64, *f64, *ptr;
  StructType *slot, *param, *solver, *gradient, *scratch, *kernels, *model;
};

Types make_types(llvm::LLVMContext& c) {
  Types t;
  t.i32 = Type::getInt32Ty(c);
  t.i64 = Type::getInt64Ty(c);
  t.f64 = Type::getDoubleTy(c);
  t.ptr = llvm::PointerType::get(c, 0);
  t.slot =
      StructType::create(c, {t.ptr, t.i32, t.i32, t.i64, t.i64, t.i32, t.i32, t.i32, t.i32, t.i32},
                         "plastic_input_slot");
  t.param =
      StructType::create(c,
                         {t.ptr, t.i32, t.i32, llvm::ArrayType::get(t.i64, PLASTIC_MAX_RANK), t.i64,
                          t.i64, t.i64, t.i64, t.i32, t.i32, llvm::ArrayType::get(t.f64, 4)},
                         "plastic_param");
  t.solver = StructType::create(c, {t.ptr, t.f64, t.f64, t.f64, t.f64, t.f64, t.i64},
                                "plastic_solver_desc");
  t.gradient = StructType::create(c, {t.i32, t.i32, t.f64, t.f64, t.f64}, "plastic_gradient_desc");
  // One member per kernel of runtime/abi_kernels.def (kKernelCount counts them).
  t.scratch =
      StructType::create(c, std::vector<Type*>(kKernelCount, t.i64), "plastic_scratch_sizes");
  t.kernels = StructType::create(c, std::vector<Type*>(kKernelCount, t.ptr), "plastic_kernels");
  t.model =
      StructType::create(c, {t.i32, t.i32, t.ptr, t.i32, t.i32, t.i64, t.i64,     t.i64,      t.i64,
                             t.i64, t.i64, t.i32, t.ptr, t.i32, t.ptr, t.solver,  t.gradient, t.ptr,
                             t.i32, t.i32, t.i32, t.i64, t.i64, t.ptr, t.scratch, t.kernels},
                         "plastic_model");
  return t;
}

// The mirror must agree with the C structs on this target's layout.
void check_layout(const Types& t, const llvm::DataLayout& dl) {
  auto check = [&](StructType* s, size_t c_size, std::initializer_list<size_t> c_offsets) {
    const llvm::StructLayout* sl = dl.getStructLayout(s);
    bool ok = sl->getSizeInBytes() == c_size && s->getNumElements() == c_offsets.size();
    unsigned i = 0;
    for (size_t off : c_offsets) {
      ok = ok && i < s->getNumElements() && sl->getElementOffset(i) == off;
      ++i;
    }
    if (!ok)
      throw plastic::InternalError(fmt::format(
          "the AOT table's LLVM type {} does not match runtime/abi.h", s->getName().str()));
  };
#define OFF(S, f) offsetof(S, f)
  check(t.slot, sizeof(plastic_input_slot),
        {OFF(plastic_input_slot, name), OFF(plastic_input_slot, kind),
         OFF(plastic_input_slot, source), OFF(plastic_input_slot, offset),
         OFF(plastic_input_slot, channels), OFF(plastic_input_slot, path_channels),
         OFF(plastic_input_slot, logsig_depth), OFF(plastic_input_slot, logsig_step),
         OFF(plastic_input_slot, interpolation), OFF(plastic_input_slot, path_options)});
  check(t.param, sizeof(plastic_param),
        {OFF(plastic_param, name), OFF(plastic_param, rank), OFF(plastic_param, init),
         OFF(plastic_param, shape), OFF(plastic_param, offset), OFF(plastic_param, size),
         OFF(plastic_param, fan_in), OFF(plastic_param, fan_out), OFF(plastic_param, init_group),
         OFF(plastic_param, init_index), OFF(plastic_param, init_args)});
  check(t.solver, sizeof(plastic_solver_desc),
        {OFF(plastic_solver_desc, method), OFF(plastic_solver_desc, step),
         OFF(plastic_solver_desc, rtol), OFF(plastic_solver_desc, atol),
         OFF(plastic_solver_desc, dt_min), OFF(plastic_solver_desc, dt_max),
         OFF(plastic_solver_desc, max_steps)});
  check(t.gradient, sizeof(plastic_gradient_desc),
        {OFF(plastic_gradient_desc, kind), OFF(plastic_gradient_desc, checkpoint_every),
         OFF(plastic_gradient_desc, adjoint_rtol), OFF(plastic_gradient_desc, adjoint_atol),
         OFF(plastic_gradient_desc, memory_budget)});
  check(t.model, sizeof(plastic_model),
        {OFF(plastic_model, abi_version),
         OFF(plastic_model, struct_size),
         OFF(plastic_model, name),
         OFF(plastic_model, dtype),
         OFF(plastic_model, lanes),
         OFF(plastic_model, n_state),
         OFF(plastic_model, n_params),
         OFF(plastic_model, n_input),
         OFF(plastic_model, n_static),
         OFF(plastic_model, n_outputs),
         OFF(plastic_model, n_targets),
         OFF(plastic_model, n_input_slots),
         OFF(plastic_model, input_slots),
         OFF(plastic_model, n_param_entries),
         OFF(plastic_model, params),
         OFF(plastic_model, solver),
         OFF(plastic_model, gradient),
         OFF(plastic_model, step_method),
         OFF(plastic_model, readout),
         OFF(plastic_model, task),
         OFF(plastic_model, observe_after_jump),
         OFF(plastic_model, field_theta_begin),
         OFF(plastic_model, field_theta_end),
         OFF(plastic_model, ctx),
         OFF(plastic_model, scratch),
         OFF(plastic_model, kernels)});
  check(t.scratch, sizeof(plastic_scratch_sizes),
        {
#define PLASTIC_ABI_KERNEL(name, Id) OFF(plastic_scratch_sizes, name),
#include "runtime/abi_kernels.def"
        });
  check(t.kernels, sizeof(plastic_kernels),
        {
#define PLASTIC_ABI_KERNEL(name, Id) OFF(plastic_kernels, name),
#include "runtime/abi_kernels.def"
        });
#undef OFF
}

class TableEmitter {
public:
  TableEmitter(llvm::Module& m, const Types& t) : m_(m), t_(t), c_(m.getContext()) {}

  Constant* i32(int64_t v) {
    return llvm::ConstantInt::get(t_.i32, static_cast<uint64_t>(v), true);
  }
  Constant* i64(int64_t v) {
    return llvm::ConstantInt::get(t_.i64, static_cast<uint64_t>(v), true);
  }
  Constant* f64(double v) { return llvm::ConstantFP::get(t_.f64, v); }
  Constant* null() { return llvm::ConstantPointerNull::get(llvm::PointerType::get(c_, 0)); }
  Constant* str(const char* s) {
    if (!s) return null();
    Constant* data = llvm::ConstantDataArray::getString(c_, s, true);
    return new llvm::GlobalVariable(m_, data->getType(), true, llvm::GlobalValue::PrivateLinkage,
                                    data, ".str");
  }
  template <class T>
  Constant* array(Type* elem, const std::vector<Constant*>& items, const char* name) {
    if (items.empty()) return null();
    auto* type = llvm::ArrayType::get(elem, items.size());
    return new llvm::GlobalVariable(m_, type, true, llvm::GlobalValue::PrivateLinkage,
                                    llvm::ConstantArray::get(type, items), name);
  }

  Constant* slot(const plastic_input_slot& s) {
    return llvm::ConstantStruct::get(t_.slot, {str(s.name), i32(s.kind), i32(s.source),
                                               i64(s.offset), i64(s.channels), i32(s.path_channels),
                                               i32(s.logsig_depth), i32(s.logsig_step),
                                               i32(s.interpolation), i32(s.path_options)});
  }
  Constant* param(const plastic_param& p) {
    std::vector<Constant*> shape, args;
    for (int64_t d : p.shape)
      shape.push_back(i64(d));
    for (double a : p.init_args)
      args.push_back(f64(a));
    return llvm::ConstantStruct::get(
        t_.param,
        {str(p.name), i32(p.rank), i32(p.init),
         llvm::ConstantArray::get(llvm::ArrayType::get(t_.i64, PLASTIC_MAX_RANK), shape),
         i64(p.offset), i64(p.size), i64(p.fan_in), i64(p.fan_out), i32(p.init_group),
         i32(p.init_index), llvm::ConstantArray::get(llvm::ArrayType::get(t_.f64, 4), args)});
  }

  // The whole table, kernel pointers resolved to this module's functions.
  Constant* model(const plastic_model& m, const ModelKernels& kernels) {
    std::vector<Constant*> slots, params, scratch, fns;
    for (int32_t i = 0; i < m.n_input_slots; ++i)
      slots.push_back(slot(m.input_slots[i]));
    for (int32_t i = 0; i < m.n_param_entries; ++i)
      params.push_back(param(m.params[i]));
    plastic_scratch_sizes sizes = m.scratch;
    for (int i = 0; i < kKernelCount; ++i) {
      KernelId id = static_cast<KernelId>(i);
      scratch.push_back(i64(static_cast<int64_t>(*scratch_slot(sizes, id))));
      const loops::Function* f = kernels.get(id);
      llvm::Function* fn = f ? m_.getFunction(f->name) : nullptr;
      if (f && !fn)
        throw plastic::InternalError(
            fmt::format("AOT table: kernel {} is not in the module", f->name));
      fns.push_back(fn ? static_cast<Constant*>(fn) : null());
    }
    const plastic_solver_desc& s = m.solver;
    const plastic_gradient_desc& g = m.gradient;
    Constant* table = llvm::ConstantStruct::get(
        t_.model,
        {i32(m.abi_version),
         i32(m.struct_size),
         str(m.name),
         i32(m.dtype),
         i32(m.lanes),
         i64(m.n_state),
         i64(m.n_params),
         i64(m.n_input),
         i64(m.n_static),
         i64(m.n_outputs),
         i64(m.n_targets),
         i32(m.n_input_slots),
         array<plastic_input_slot>(t_.slot, slots, "plastic.input_slots"),
         i32(m.n_param_entries),
         array<plastic_param>(t_.param, params, "plastic.params"),
         llvm::ConstantStruct::get(t_.solver, {str(s.method), f64(s.step), f64(s.rtol), f64(s.atol),
                                               f64(s.dt_min), f64(s.dt_max), i64(s.max_steps)}),
         llvm::ConstantStruct::get(t_.gradient,
                                   {i32(g.kind), i32(g.checkpoint_every), f64(g.adjoint_rtol),
                                    f64(g.adjoint_atol), f64(g.memory_budget)}),
         str(m.step_method),
         i32(m.readout),
         i32(m.task),
         i32(m.observe_after_jump),
         i64(m.field_theta_begin),
         i64(m.field_theta_end),
         null(),
         llvm::ConstantStruct::get(t_.scratch, scratch),
         llvm::ConstantStruct::get(t_.kernels, fns)});
    return new llvm::GlobalVariable(m_, t_.model, true, llvm::GlobalValue::PrivateLinkage, table,
                                    "plastic.model");
  }

private:
  llvm::Module& m_;
  const Types& t_;
  llvm::LLVMContext& c_;
};

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw loops::CodegenError(fmt::format("cannot open '{}' for writing", path));
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw loops::CodegenError(fmt::format("cannot write '{}'", path));
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The kernels' header with the entry point declared inside its include guard.
std::string entry_header(const std::string& kernels_header) {
  size_t guard_end = kernels_header.rfind("#endif");
  if (guard_end == std::string::npos) guard_end = kernels_header.size();
  return kernels_header.substr(0, guard_end) +
         fmt::format(R"(
/* The model table (runtime/abi.h): valid for the life of the program. */
#ifdef __cplusplus
extern "C" {{
#endif
struct plastic_model;
const struct plastic_model* {}(void);
#ifdef __cplusplus
}}
#endif
)",
                     PLASTIC_MODEL_ENTRY_SYMBOL) +
         kernels_header.substr(guard_end);
}

} // namespace

backend::CompileStats emit_model_object(const model::ModelFunctions& fns, loops::ElemType type,
                                        const std::string& object_path,
                                        const std::string& header_path, int lanes,
                                        const backend::CompileOptions& options,
                                        const std::map<std::string, std::string>& strings) {
  ModelLayout layout = compute_layout(fns);
  ModelKernels kernels = build_kernels(fns, layout, type, lanes, layout.name + "_");
  const int actual_lanes =
      kernels.module.functions.empty() ? lanes : kernels.module.functions[0].lanes;
  ModelTable table;
  fill_table(layout, kernels, type, actual_lanes, [](KernelId) { return nullptr; }, table);

  const detail::TargetSpec spec = detail::resolve_target(options);
  std::unique_ptr<llvm::TargetMachine> tm = detail::make_target_machine(spec, options.opt_level);
  llvm::LLVMContext ctx;
  backend::CompileStats stats;
  auto t0 = std::chrono::steady_clock::now();
  const llvm::DataLayout dl = tm->createDataLayout();
  std::unique_ptr<llvm::Module> mod = detail::lower_module(kernels.module, ctx, spec, dl, options);
  Types types = make_types(ctx);
  check_layout(types, dl);
  TableEmitter emitter(*mod, types);
  Constant* model = emitter.model(table.model, kernels);
  auto* entry_type = llvm::FunctionType::get(types.ptr, false);
  auto* entry = llvm::Function::Create(entry_type, llvm::GlobalValue::ExternalLinkage,
                                       PLASTIC_MODEL_ENTRY_SYMBOL, *mod);
  llvm::IRBuilder<> irb(llvm::BasicBlock::Create(ctx, "entry", entry));
  irb.CreateRet(model);
  for (const auto& [symbol, text] : strings) {
    Constant* data = llvm::ConstantDataArray::getString(ctx, text, true);
    new llvm::GlobalVariable(*mod, data->getType(), true, llvm::GlobalValue::ExternalLinkage, data,
                             symbol);
  }
  stats.lower_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  detail::optimize(*mod, *tm, options.opt_level, options.unroll_loops);
  stats.optimize_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile))
    throw loops::CodegenError(fmt::format("target '{}' cannot emit object files", spec.triple));
  pm.run(*mod);
  stats.codegen_ms = ms_since(t0);
  write_file(object_path, std::string(buffer.data(), buffer.size()));
  if (!header_path.empty()) write_file(header_path, entry_header(loops::c_header(kernels.module)));
  return stats;
}

} // namespace plastic::backend
