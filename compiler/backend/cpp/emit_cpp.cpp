// A model's kernels and table as one C++ file (emit_cpp.h).
#include "compiler/backend/cpp/emit_cpp.h"

#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include "compiler/abi/table.h"
#include "compiler/backend/cpp/kernel_writer.h"
#include "compiler/backend/cpp/prelude.h"
#include "compiler/loops/c_header.h"

namespace plastic::backend::cpp {

using namespace ::plastic::abi;
using loops::ElemType;

namespace {

std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\')
      out += std::string("\\") + c;
    else if (c == '\n')
      out += "\\n";
    else if (u < 0x20 || u >= 0x7f)
      out += fmt::format("\\{:03o}", u);
    else
      out += c;
  }
  return out + "\"";
}

std::string real(double v) {
  if (std::isinf(v)) return v > 0 ? "HUGE_VAL" : "-HUGE_VAL";
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string cstr(const char* s) {
  return s ? quoted(s) : "nullptr";
}

const char* input_kind(int32_t k) {
  switch (k) {
  case PLASTIC_INPUT_PATH_VALUE:
    return "PLASTIC_INPUT_PATH_VALUE";
  case PLASTIC_INPUT_PATH_DERIV:
    return "PLASTIC_INPUT_PATH_DERIV";
  case PLASTIC_INPUT_STATIC:
    return "PLASTIC_INPUT_STATIC";
  case PLASTIC_INPUT_LOGSIG_DRIVER:
    return "PLASTIC_INPUT_LOGSIG_DRIVER";
  default:
    return nullptr;
  }
}

const char* init_kind(int32_t k) {
  static constexpr const char* names[] = {nullptr,
                                          "PLASTIC_INIT_UNIFORM_FAN_IN",
                                          "PLASTIC_INIT_GLOROT_UNIFORM",
                                          "PLASTIC_INIT_GLOROT_NORMAL",
                                          "PLASTIC_INIT_KAIMING_UNIFORM",
                                          "PLASTIC_INIT_KAIMING_NORMAL",
                                          "PLASTIC_INIT_ZEROS",
                                          "PLASTIC_INIT_ONES",
                                          "PLASTIC_INIT_NORMAL",
                                          "PLASTIC_INIT_ORTHOGONAL",
                                          "PLASTIC_INIT_CRITICAL",
                                          "PLASTIC_INIT_STABILITY_INFORMED",
                                          "PLASTIC_INIT_CONSTANT",
                                          "PLASTIC_INIT_UNIFORM"};
  return k >= 1 && k <= PLASTIC_INIT_UNIFORM ? names[k] : nullptr;
}

const char* gradient_kind(int32_t k) {
  switch (k) {
  case PLASTIC_GRAD_DIRECT:
    return "PLASTIC_GRAD_DIRECT";
  case PLASTIC_GRAD_CHECKPOINT:
    return "PLASTIC_GRAD_CHECKPOINT";
  case PLASTIC_GRAD_ADJOINT:
    return "PLASTIC_GRAD_ADJOINT";
  case PLASTIC_GRAD_AUTO:
    return "PLASTIC_GRAD_AUTO";
  default:
    return nullptr;
  }
}

const char* readout_kind(int32_t k) {
  return k == PLASTIC_READOUT_FINAL              ? "PLASTIC_READOUT_FINAL"
         : k == PLASTIC_READOUT_EACH_OBSERVATION ? "PLASTIC_READOUT_EACH_OBSERVATION"
                                                 : nullptr;
}

const char* task_kind(int32_t k) {
  return k == PLASTIC_TASK_CLASSIFICATION ? "PLASTIC_TASK_CLASSIFICATION"
         : k == PLASTIC_TASK_BINARY       ? "PLASTIC_TASK_BINARY"
         : k == PLASTIC_TASK_REGRESSION   ? "PLASTIC_TASK_REGRESSION"
                                          : nullptr;
}

// An enum constant's name, or its number when abi.h has no name for it.
std::string named(const char* name, int32_t value) {
  return name ? name : fmt::format("{}", value);
}

std::string input_slots(const plastic_model& m) {
  if (m.n_input_slots == 0) return {};
  std::string s = "const plastic_input_slot kInputSlots[] = {\n";
  for (int32_t i = 0; i < m.n_input_slots; ++i) {
    const plastic_input_slot& c = m.input_slots[i];
    s += fmt::format("{{.name = {}, .kind = {}, .source = {}, .offset = {}, .channels = {}, "
                     ".path_channels = {}, .logsig_depth = {}, .logsig_step = {}, "
                     ".interpolation = {}, .path_options = {}}},\n",
                     cstr(c.name), named(input_kind(c.kind), c.kind), c.source, c.offset,
                     c.channels, c.path_channels, c.logsig_depth, c.logsig_step, c.interpolation,
                     c.path_options);
  }
  return s + "};\n\n";
}

std::string params(const plastic_model& m) {
  if (m.n_param_entries == 0) return {};
  std::string s = "const plastic_param kParams[] = {\n";
  for (int32_t i = 0; i < m.n_param_entries; ++i) {
    const plastic_param& p = m.params[i];
    std::string shape, args;
    for (int32_t d = 0; d < p.rank; ++d)
      shape += (d ? ", " : "") + fmt::format("{}", p.shape[d]);
    for (int k = 0; k < 4; ++k)
      args += (k ? ", " : "") + real(p.init_args[k]);
    s += fmt::format("{{.name = {}, .rank = {}, .init = {}, .shape = {{{}}}, .offset = {}, "
                     ".size = {}, .fan_in = {}, .fan_out = {}, .init_group = {}, "
                     ".init_index = {}, .init_args = {{{}}}}},\n",
                     cstr(p.name), p.rank, named(init_kind(p.init), p.init), shape, p.offset,
                     p.size, p.fan_in, p.fan_out, p.init_group, p.init_index, args);
  }
  return s + "};\n\n";
}

std::string model_table(const plastic_model& m, const ModelKernels& kernels) {
  const plastic_solver_desc& sv = m.solver;
  const plastic_gradient_desc& g = m.gradient;
  std::string scratch, fns;
  plastic_scratch_sizes sizes = m.scratch;
  for (int i = 0; i < kKernelCount; ++i) {
    const auto id = static_cast<KernelId>(i);
    const loops::Function* f = kernels.get(id);
    if (!f) continue;
    scratch += fmt::format(".{} = {},\n", kernel_name(id), *scratch_slot(sizes, id));
    fns += fmt::format(".{} = {},\n", kernel_name(id), f->name);
  }
  std::string s = "const plastic_model kModel = {\n";
  s += fmt::format(".abi_version = PLASTIC_ABI_VERSION,\n.struct_size = sizeof(plastic_model),\n"
                   ".name = {},\n.dtype = {},\n.lanes = L,\n",
                   cstr(m.name), m.dtype == PLASTIC_F32 ? "PLASTIC_F32" : "PLASTIC_F64");
  s += fmt::format(".n_state = {},\n.n_params = {},\n.n_input = {},\n.n_static = {},\n"
                   ".n_outputs = {},\n.n_targets = {},\n",
                   m.n_state, m.n_params, m.n_input, m.n_static, m.n_outputs, m.n_targets);
  s += fmt::format(".n_input_slots = {},\n.input_slots = {},\n.n_param_entries = {},\n"
                   ".params = {},\n",
                   m.n_input_slots, m.n_input_slots ? "kInputSlots" : "nullptr", m.n_param_entries,
                   m.n_param_entries ? "kParams" : "nullptr");
  s += fmt::format(".solver = {{.method = {}, .step = {}, .rtol = {}, .atol = {}, .dt_min = {}, "
                   ".dt_max = {}, .max_steps = {}}},\n",
                   cstr(sv.method), real(sv.step), real(sv.rtol), real(sv.atol), real(sv.dt_min),
                   real(sv.dt_max), sv.max_steps);
  // memory_budget only where it means something (`gradient auto`): the
  // other tables read as before and it stays 0 in them.
  s += fmt::format(".gradient = {{.kind = {}, .checkpoint_every = {}, .adjoint_rtol = {}, "
                   ".adjoint_atol = {}{}}},\n",
                   named(gradient_kind(g.kind), g.kind), g.checkpoint_every, real(g.adjoint_rtol),
                   real(g.adjoint_atol),
                   g.kind == PLASTIC_GRAD_AUTO
                       ? fmt::format(", .memory_budget = {}", real(g.memory_budget))
                       : std::string());
  s += fmt::format(".step_method = {},\n.readout = {},\n.task = {},\n.observe_after_jump = {},\n"
                   ".field_theta_begin = {},\n.field_theta_end = {},\n.ctx = nullptr,\n",
                   cstr(m.step_method), named(readout_kind(m.readout), m.readout),
                   named(task_kind(m.task), m.task), m.observe_after_jump, m.field_theta_begin,
                   m.field_theta_end);
  s += ".scratch = {\n" + scratch + "},\n.kernels = {\n" + fns + "},\n};\n";
  return s;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

} // namespace

std::string emit_cpp(const ModelLayout& layout, const ModelKernels& kernels,
                     const CppEmitOptions& options) {
  const ElemType type = kernels.type();
  const int lanes = kernels.lanes(type);
  const char* ctype = type == ElemType::F32 ? "float" : "double";

  std::string s = fmt::format(
      "// The kernels of the Plastic model '{}'{}: {} x {} lanes.\n"
      "// Generated by Plastic (`plastic emit --cpp`); do not edit.\n"
      "//\n"
      "// Every kernel processes one tile of L samples stored lane-interleaved: element i\n"
      "// of sample l of a per-sample array is at [i * L + l]; parameters (theta) are\n"
      "// shared and not interleaved. The signatures and the table are runtime/abi.h's.\n"
      "#include <bit>\n#include <cmath>\n#include <cstdint>\n#include <type_traits>\n\n"
      "#include \"runtime/abi.h\"\n\n",
      layout.name, options.source_name.empty() ? "" : " (" + options.source_name + ")",
      loops::elem_type_name(type), lanes);
  s += fmt::format("namespace {{\n\n/// The element type of every array.\nusing T = {};\n"
                   "/// Samples per tile.\nconstexpr int64_t L = {};\n\n}} // namespace\n\n",
                   ctype, lanes);
  s += detail::prelude();

  detail::KernelContext context;
  context.layout = &layout;
  context.source_name = options.source_name;
  context.source_lines = lines_of(options.source_text);
  for (int i = 0; i < kKernelCount; ++i) {
    const auto id = static_cast<KernelId>(i);
    const loops::Function* f = kernels.get(id);
    if (!f) continue;
    s +=
        fmt::format("\n/// {}: runtime/abi.h's plastic_{}_fn.\n", kernel_name(id), kernel_name(id));
    s += detail::write_kernel(*f, context);
    if (options.packed_entries) s += detail::write_packed_entry(*f);
  }

  if (options.table) {
    ModelTable table;
    fill_table(layout, kernels, type, lanes, [](KernelId) { return nullptr; }, table);
    s += "\n// The model table (runtime/abi.h), read by the runtime through plastic_model_v1().\n"
         "namespace {\n\n";
    s += input_slots(table.model) + params(table.model) + model_table(table.model, kernels);
    s += "\n} // namespace\n\n";
    s += fmt::format("extern \"C\" const plastic_model* {}(void) {{ return &kModel; }}\n",
                     PLASTIC_MODEL_ENTRY_SYMBOL);
  }
  for (const auto& [symbol, text] : options.strings)
    s += fmt::format("\nextern \"C\" {{\nextern const char {}[];\nconst char {}[] = {};\n}}\n",
                     symbol, symbol, quoted(text));
  return s;
}

std::string emit_cpp_header(const ModelKernels& kernels, bool table) {
  std::string h = loops::c_header(kernels.module);
  if (!table) return h;
  size_t guard_end = h.rfind("#endif");
  if (guard_end == std::string::npos) guard_end = h.size();
  return h.substr(0, guard_end) +
         fmt::format("/* The model table (runtime/abi.h): valid for the life of the program. */\n"
                     "#ifdef __cplusplus\nextern \"C\" {{\n#endif\n"
                     "struct plastic_model;\nconst struct plastic_model* {}(void);\n"
                     "#ifdef __cplusplus\n}}\n#endif\n\n",
                     PLASTIC_MODEL_ENTRY_SYMBOL) +
         h.substr(guard_end);
}

} // namespace plastic::backend::cpp
