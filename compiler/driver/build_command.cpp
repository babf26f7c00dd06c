// `plastic build FILE -o NAME`: an ahead-of-time model binary. The model's
// kernels and plastic_model table go into one object (exporting
// PLASTIC_MODEL_ENTRY_SYMBOL, plus how it was built as JSON under
// PLASTIC_MODEL_INFO_SYMBOL), which the system C++ compiler links with the
// runtime's static libraries (link_binary.h) into an executable that needs
// no LLVM, no compiler and no model file. `--emit-obj` stops at the object
// and its C header; `--emit-lib` archives the object as libNAME.a for
// programs that embed the model. `--target` must name a CPU LLVM knows
// (`--target help` lists them).
#include "compiler/backend/compiled_model.h"
#include "compiler/driver/backend_choice.h"
#include "compiler/driver/commands.h"
#include "compiler/driver/link_binary.h"
#include "compiler/driver/load_model.h"
#include "compiler/loops/elem_type.h"
#include "compiler/loops/error.h"
#include "dsl/frontend.h"
#include "runtime/app/binding.h"
#include "runtime/app/model_data.h"
#include "runtime/app/model_info.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

namespace plastic::driver {

namespace fs = std::filesystem;

namespace {

// 64-bit FNV-1a of the model file's bytes: `info` names the exact source a
// binary was built from.
std::string file_hash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes.str()) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

// A temporary folder for the object, removed however the build ends.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "plastic-build-XXXXXX").string();
    if (::mkdtemp(pattern.data())) path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A binary freezes its dims, so those the model takes from the data come
// from --data (the data it will read) or from --set; their `else` values,
// which stand in where no data are at hand (check, the REPL), would build a
// binary that refuses the data it was built for. nullopt: resolved into
// `common`; otherwise the exit code, the reason printed.
std::optional<int> resolve_data_dims(BuildRequest& r, CommonOptions& common) {
  if (!r.run.empty()) {
    // The run's binding: its --set values (each given now replacing the
    // run's), element type and the dims it took from its data, as eval and
    // predict bind it.
    auto binding = rt::read_binding(r.run);
    if (!binding) {
      std::cerr << fmt::format("plastic build: {}\n", binding.error().message);
      return binding.error().exit_code;
    }
    if (!binding.value()) {
      std::cerr << fmt::format("plastic build: --run {}: no run.json there (the record of a "
                               "`plastic train` run)\n",
                               r.run);
      return kUsageError;
    }
    const rt::RunBinding& b = *binding.value();
    if (!r.dtype_given)
      r.dtype = b.record.dtype;
    else if (r.dtype != b.record.dtype)
      std::cerr << fmt::format("plastic build: note: the run trained in {}, this binary is {} "
                               "(--dtype)\n",
                               b.record.dtype, r.dtype);
    common.overrides = b.sets_with(common.overrides);
    if (r.lanes <= 0) r.lanes = b.record.lanes; // the run's tiles, unless --lanes says otherwise
    if (b.preparation) {
      common.data_quantities = b.data_quantities();
      common.data_name = b.name();
    }
    return std::nullopt;
  }
  const std::vector<dsl::DataDim> dims = dsl::data_dims(r.file);
  if (dims.empty()) {
    if (!r.data.empty())
      std::cerr << fmt::format("plastic build: note: {} takes no dim from the data; --data {} "
                               "changes nothing\n",
                               r.file, r.data);
    return std::nullopt;
  }
  if (!r.data.empty()) {
    rt::RunOptions run;
    run.data = r.data;
    run.data_flags = r.data_flags;
    auto q = rt::data_quantities(run);
    if (!q) {
      std::cerr << fmt::format("plastic build: {}\n", q.error().message);
      return q.error().exit_code;
    }
    common.data_quantities = std::move(q.value());
    common.data_name = r.data;
    return std::nullopt;
  }
  std::string missing, sets;
  for (const dsl::DataDim& d : dims) {
    if (common.overrides.count(d.name)) continue;
    missing +=
        fmt::format("\n  {}:{}: dim '{}' comes from data.{}{}", r.file, d.line, d.name, d.quantity,
                    d.fallback.empty() ? ""
                                       : " (its `else " + d.fallback +
                                             "` is for "
                                             "commands without data)");
    sets += fmt::format(" --set {}=N", d.name);
  }
  if (missing.empty()) return std::nullopt;
  std::cerr << fmt::format("plastic build: a model binary freezes its dims, and {} takes some "
                           "from the data:{}\n  give the data the binary will read: plastic "
                           "build {} --data DATA -o {}\n  or a trained run's: --run RUN_DIR\n"
                           "  or the values:{}\n",
                           r.file, missing, r.file, r.out.empty() ? "NAME" : r.out, sets);
  return kUsageError;
}

} // namespace

namespace {

/// Says `message` as build's error and returns `code`.
int refuse(int code, const std::string& message) {
  std::cerr << "plastic build: " << message;
  if (message.empty() || message.back() != '\n') std::cerr << "\n"; // a tool's log ends its own
  return code;
}

/// The command line's own mistakes, found before compiling for seconds:
/// exclusive flags, an unknown CPU (LLVM only warns and then emits generic
/// code: a typo would silently cost the vector width asked for), no -o or
/// its folder missing. `--target help` lists the CPUs and ends the command.
std::optional<int> check_request(const BuildRequest& r) {
  if (r.emit_obj && r.emit_lib)
    return refuse(kUsageError, "choose one of --emit-obj and --emit-lib");
  if (!r.target.empty() && r.target != "native") {
    const std::vector<std::string> cpus = backend::known_cpus();
    if (r.target == "help") {
      std::cout << "native\n";
      for (const std::string& cpu : cpus)
        std::cout << cpu << "\n";
      return kOk;
    }
    if (std::find(cpus.begin(), cpus.end(), r.target) == cpus.end())
      return refuse(kUsageError,
                    fmt::format("unknown target CPU '{}'; use native, x86-64-v3 (AVX2), "
                                "x86-64-v4 (AVX-512) or one of LLVM's {} CPU names: `plastic "
                                "build {} --target help` lists them",
                                r.target, cpus.size(), r.file));
  }
  if (r.out.empty())
    return refuse(kUsageError, "-o is required (the model binary, or with --emit-obj and "
                               "--emit-lib the path without extension)");
  if (const fs::path folder = fs::path(r.out).parent_path(); !folder.empty()) {
    std::error_code ec;
    if (!fs::is_directory(folder, ec))
      return refuse(kUsageError,
                    fmt::format("-o {}: the folder {} does not exist", r.out, folder.string()));
  }
  return std::nullopt;
}

/// What the binary says of itself (`--info`): version, source, --set
/// values, dims, the data its dims were taken from, and the target.
nlohmann::ordered_json model_info(const BuildRequest& r, const model::ModelFunctions& fns,
                                  const CommonOptions& common,
                                  const backend::CompileOptions& options) {
  nlohmann::ordered_json info;
  info["plastic_version"] = PLASTIC_VERSION;
  info["source"] = {{"file", fs::path(r.file).filename().string()}, {"fnv1a64", file_hash(r.file)}};
  nlohmann::ordered_json set_values = nlohmann::ordered_json::object(),
                         dims = nlohmann::ordered_json::object();
  for (const auto& [name, value] : common.overrides)
    set_values[name] = value;
  for (const auto& d : fns.model->dims) // integer dims as integers, consts as reals
    dims[d.name] = d.is_const ? nlohmann::ordered_json(d.value)
                              : nlohmann::ordered_json(static_cast<int64_t>(d.value));
  info["sets"] = set_values;
  info["dims"] = dims;
  if (!r.data.empty()) info["dims_from_data"] = r.data;
  info["target"] = {{"cpu", r.target.empty() ? "native" : r.target},
                    {"description", backend::describe_target(options)}};
  return info;
}

/// --emit-lib: the object archived as libOUT.a beside OUT.h.
int archive_library(const BuildRequest& r, const fs::path& object, const fs::path& log,
                    const std::string& header, const std::string& what) {
  std::string error;
  std::vector<std::string> ar = find_tool("AR", "ar", error);
  if (ar.empty())
    return refuse(kInputError,
                  fmt::format("--emit-lib needs an archiver: {}. Install one: apt-get install "
                              "binutils",
                              error));
  const fs::path out(r.out);
  const fs::path lib = out.parent_path() / ("lib" + out.filename().string() + ".a");
  std::error_code ec;
  fs::remove(lib, ec);
  ar.insert(ar.end(), {"rcs", lib.string(), object.string()});
  if (run_tool(ar, log.string()) != 0)
    return refuse(kInputError, fmt::format("archiving {} failed:\n{}", lib.string(), slurp(log)));
  std::cerr << fmt::format("plastic build: wrote {} and {} ({})\n", lib.string(), header, what);
  return kOk;
}

/// The model binary: the object linked with the runtime by the system C++
/// compiler.
int link_model_binary(const BuildRequest& r, const fs::path& object, const fs::path& log,
                      const std::string& what, const std::string& compile_note,
                      std::chrono::steady_clock::time_point start) {
  std::string error;
  std::vector<std::string> cxx = find_tool("CXX", "c++", error);
  if (cxx.empty())
    return refuse(kInputError,
                  fmt::format("a C++ compiler is needed to link the model binary: {}. Install "
                              "one (Debian: apt-get install g++), or set CXX; `plastic build "
                              "--emit-obj` needs none",
                              error));
  std::vector<std::string> items = model_link_items(error);
  if (items.empty()) return refuse(kInternalError, error);
  std::vector<std::string> argv = cxx;
  argv.insert(argv.end(), {"-o", r.out, object.string()});
  argv.insert(argv.end(), items.begin(), items.end());
  const auto link_start = std::chrono::steady_clock::now();
  if (run_tool(argv, log.string()) != 0) {
    std::string line;
    for (const std::string& a : argv)
      line += (line.empty() ? "" : " ") + a;
    return refuse(kInputError,
                  fmt::format("linking {} failed:\n  {}\n{}", r.out, line, slurp(log)));
  }
  std::error_code ec;
  const auto size = fs::file_size(r.out, ec);
  std::cerr << fmt::format(
      "plastic build: wrote {} ({}; {:.1f} MB; {:.2f} s, of which {} and {:.2f} s linking)\n",
      r.out, what, static_cast<double>(size) / 1e6, seconds_since(start), compile_note,
      seconds_since(link_start));
  return kOk;
}

} // namespace

int run_build(const BuildRequest& request, const CommonOptions& common) {
  BuildRequest r = request; // --run fills in the run's element type
  if (std::optional<int> done = check_request(r)) return *done;
  const auto start = std::chrono::steady_clock::now();
  CommonOptions bound = common;
  if (std::optional<int> refused = resolve_data_dims(r, bound)) return *refused;
  int code = kOk;
  auto fns = load_model(r.file, bound, code);
  if (!fns) return code;
  const loops::ElemType type = loops::elem_type(r.dtype);
  backend::CompileOptions options;
  if (r.target != "native") options.cpu = r.target;
  const int lanes = r.lanes > 0 ? r.lanes : backend::target_lanes(type, options);
  const nlohmann::ordered_json info = model_info(r, *fns, common, options);

  // The object: where the user asked (--emit-obj, --emit-lib's header) or in
  // a temporary folder that is gone after the link.
  TempDir tmp;
  if (!r.emit_obj && tmp.path.empty())
    return refuse(kInputError, fmt::format("cannot create a temporary folder in {}",
                                           fs::temp_directory_path().string()));
  const fs::path object = r.emit_obj ? fs::path(r.out + ".o") : tmp.path / "model.o";
  const std::string header = r.emit_obj || r.emit_lib ? r.out + ".h" : "";
  backend::CompileStats stats;
  try {
    stats = emit_object_with(common.backend, *fns, type, object.string(), header, lanes, options,
                             {{PLASTIC_MODEL_INFO_SYMBOL, info.dump()}});
  } catch (const abi::LayoutError& e) {
    return refuse(kInputError, e.what());
  } catch (const loops::CodegenError& e) {
    return refuse(kInputError, e.what());
  }
  const std::string what = fmt::format("{} {} x {} lanes, target {}", fns->model->name, r.dtype,
                                       lanes, r.target.empty() ? "native" : r.target);
  // Where the object's compile time went: LLVM, or Clang for the C++ backend.
  const char* compiler = common.backend == Backend::Cpp ? "Clang" : "LLVM";
  if (r.emit_obj) {
    std::cerr << fmt::format("plastic build: wrote {0}.o and {0}.h ({1}; {2:.0f} ms in {3})\n",
                             r.out, what, stats.total_ms(), compiler);
    return kOk;
  }
  const fs::path log = tmp.path / "link.log";
  if (r.emit_lib) return archive_library(r, object, log, header, what);
  return link_model_binary(r, object, log, what,
                           fmt::format("{:.2f} s in {}", stats.total_ms() / 1e3, compiler), start);
}

} // namespace plastic::driver
