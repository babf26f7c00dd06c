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
#include "compiler/loops/error.h"
#include "runtime/app/model_info.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
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

} // namespace

int run_build(const BuildRequest& r, const CommonOptions& common) {
  if (r.emit_obj && r.emit_lib) {
    std::cerr << "plastic build: choose one of --emit-obj and --emit-lib\n";
    return kUsageError;
  }
  // LLVM only warns about a CPU it does not know and then emits generic
  // code: a typo would silently cost the vector width asked for.
  if (!r.target.empty() && r.target != "native") {
    const std::vector<std::string> cpus = backend::known_cpus();
    if (r.target == "help") {
      std::cout << "native\n";
      for (const std::string& cpu : cpus)
        std::cout << cpu << "\n";
      return kOk;
    }
    if (std::find(cpus.begin(), cpus.end(), r.target) == cpus.end()) {
      std::cerr << fmt::format(
          "plastic build: unknown target CPU '{}'; use native, x86-64-v3 (AVX2), x86-64-v4 "
          "(AVX-512) or one of LLVM's {} CPU names: `plastic build {} --target help` lists them\n",
          r.target, cpus.size(), r.file);
      return kUsageError;
    }
  }
  if (r.out.empty()) {
    std::cerr << "plastic build: -o is required (the model binary, or with --emit-obj and "
                 "--emit-lib the path without extension)\n";
    return kUsageError;
  }
  const auto start = std::chrono::steady_clock::now();
  int code = kOk;
  auto fns = load_model(r.file, common, code);
  if (!fns) return code;
  const loops::ElemType type = r.dtype == "f32" ? loops::ElemType::F32 : loops::ElemType::F64;
  backend::CompileOptions options;
  if (r.target != "native") options.cpu = r.target;
  const int lanes = r.lanes > 0 ? r.lanes : backend::target_lanes(type, options);

  nlohmann::ordered_json info;
  info["plastic_version"] = PLASTIC_VERSION;
  info["source"] = {{"file", fs::path(r.file).filename().string()}, {"fnv1a64", file_hash(r.file)}};
  nlohmann::ordered_json set_values = nlohmann::ordered_json::object(),
                         dims = nlohmann::ordered_json::object();
  for (const auto& [name, value] : common.overrides)
    set_values[name] = value;
  for (const auto& d : fns->model->dims)
    dims[d.name] = d.value;
  info["sets"] = set_values;
  info["dims"] = dims;
  info["target"] = {{"cpu", r.target.empty() ? "native" : r.target},
                    {"description", backend::describe_target(options)}};

  // The object: where the user asked (--emit-obj, --emit-lib's header) or in
  // a temporary folder that is gone after the link.
  TempDir tmp;
  if (!r.emit_obj && tmp.path.empty()) {
    std::cerr << fmt::format("plastic build: cannot create a temporary folder in {}\n",
                             fs::temp_directory_path().string());
    return kInputError;
  }
  const fs::path object = r.emit_obj ? fs::path(r.out + ".o") : tmp.path / "model.o";
  const std::string header = r.emit_obj || r.emit_lib ? r.out + ".h" : "";
  backend::CompileStats stats;
  try {
    stats = emit_object_with(common.backend, *fns, type, object.string(), header, lanes, options,
                             {{PLASTIC_MODEL_INFO_SYMBOL, info.dump()}});
  } catch (const abi::LayoutError& e) {
    std::cerr << fmt::format("plastic build: {}\n", e.what());
    return kInputError;
  } catch (const loops::CodegenError& e) {
    std::cerr << fmt::format("plastic build: {}\n", e.what());
    return kInputError;
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

  std::string error;
  const fs::path log = tmp.path / "link.log";
  if (r.emit_lib) {
    std::vector<std::string> ar = find_tool("AR", "ar", error);
    if (ar.empty()) {
      std::cerr << fmt::format(
          "plastic build: --emit-lib needs an archiver: {}. Install one: apt-get install "
          "binutils\n",
          error);
      return kInputError;
    }
    const fs::path out(r.out);
    const fs::path lib = out.parent_path() / ("lib" + out.filename().string() + ".a");
    std::error_code ec;
    fs::remove(lib, ec);
    ar.insert(ar.end(), {"rcs", lib.string(), object.string()});
    if (run_tool(ar, log.string()) != 0) {
      std::cerr << fmt::format("plastic build: archiving {} failed:\n{}", lib.string(), slurp(log));
      return kInputError;
    }
    std::cerr << fmt::format("plastic build: wrote {} and {} ({})\n", lib.string(), header, what);
    return kOk;
  }

  std::vector<std::string> cxx = find_tool("CXX", "c++", error);
  if (cxx.empty()) {
    std::cerr << fmt::format(
        "plastic build: a C++ compiler is needed to link the model binary: {}. Install one "
        "(Debian: apt-get install g++), or set CXX; `plastic build --emit-obj` needs none\n",
        error);
    return kInputError;
  }
  std::vector<std::string> items = model_link_items(error);
  if (items.empty()) {
    std::cerr << fmt::format("plastic build: {}\n", error);
    return kInternalError;
  }
  std::vector<std::string> argv = cxx;
  argv.insert(argv.end(), {"-o", r.out, object.string()});
  argv.insert(argv.end(), items.begin(), items.end());
  const auto link_start = std::chrono::steady_clock::now();
  if (run_tool(argv, log.string()) != 0) {
    std::string line;
    for (const std::string& a : argv)
      line += (line.empty() ? "" : " ") + a;
    std::cerr << fmt::format("plastic build: linking {} failed:\n  {}\n{}", r.out, line,
                             slurp(log));
    return kInputError;
  }
  std::error_code ec;
  const auto size = fs::file_size(r.out, ec);
  std::cerr << fmt::format(
      "plastic build: wrote {} ({}; {:.1f} MB; {:.2f} s, of which {:.2f} s in {} and {:.2f} s "
      "linking)\n",
      r.out, what, static_cast<double>(size) / 1e6, seconds_since(start), stats.total_ms() / 1e3,
      compiler, seconds_since(link_start));
  return kOk;
}

} // namespace plastic::driver
