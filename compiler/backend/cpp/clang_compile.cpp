// Generated C++ to LLVM IR or an object file with Clang in process (clang_compile.h).
#include "compiler/backend/cpp/clang_compile.h"

#include <mutex>
#include <sstream>
#include <vector>

#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/Version.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Frontend/Utils.h>
#include <fmt/format.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include "compiler/backend/cpp/embedded_files.h"
#include "compiler/loops/error.h"

namespace plastic::backend::cpp::detail {

namespace {

// Where the in-memory files live; the folder exists in no real filesystem.
constexpr const char* kVirtualRoot = "/plastic-generated";

void initialize_targets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

// The real filesystem (system and C++ library headers) under an in-memory
// layer holding the source and the headers of Plastic it includes.
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> files(const std::string& source_path,
                                                      const std::string& source) {
  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  const std::string include = std::string(kVirtualRoot) + "/include/runtime/";
  memory->addFile(include + "abi.h", 0, llvm::MemoryBuffer::getMemBuffer(kAbiHeader));
  memory->addFile(include + "abi_kernels.def", 0, llvm::MemoryBuffer::getMemBuffer(kAbiKernelsDef));
  memory->addFile(source_path, 0, llvm::MemoryBuffer::getMemBufferCopy(source));
  auto overlay =
      llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
  overlay->pushOverlay(memory);
  return overlay;
}

std::vector<std::string> command_line(const std::string& source_path, const TargetSpec& target,
                                      const CompileOptions& options,
                                      const std::string& object_path) {
  std::vector<std::string> args = {
      "clang++", "-x", "c++", "-std=c++20", "-O3", "-fopenmp-simd", "-fno-math-errno",
      // The LLVM backend's `contract` on every operation
      // (CompileOptions::contract): a*b+c fused wherever it
      // occurs, across statements and inlined helpers too, so
      // both backends round alike.
      options.contract ? "-ffp-contract=fast" : "-ffp-contract=off", "-fno-unroll-loops", "-fPIC",
      "-w", "-resource-dir", std::string(kClangResourceDir), "-I",
      std::string(kVirtualRoot) + "/include", "-target", target.triple, "-march=" + target.cpu};
  // The feature string of the target (the host's by default): a CPU name
  // alone would enable features a virtual machine may have switched off.
  std::stringstream features(target.features);
  for (std::string f; std::getline(features, f, ',');)
    if (!f.empty()) args.insert(args.end(), {"-Xclang", "-target-feature", "-Xclang", f});
  args.insert(args.end(), {"-c", source_path, "-o", object_path.empty() ? "-" : object_path});
  return args;
}

// Runs `action` on `source`; Clang's diagnostics become a CodegenError.
void run(clang::FrontendAction& action, const std::string& source, const std::string& file_name,
         const CompileOptions& options, const std::string& object_path) {
  initialize_targets();
  const std::string source_path = std::string(kVirtualRoot) + "/" + file_name;
  auto vfs = files(source_path, source);
  std::string diagnostics;
  llvm::raw_string_ostream diag_stream(diagnostics);
  auto diag_options = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  clang::TextDiagnosticPrinter printer(diag_stream, diag_options.get());

  const std::vector<std::string> args =
      command_line(source_path, target_spec(options), options, object_path);
  std::vector<const char*> argv;
  argv.reserve(args.size());
  for (const std::string& a : args)
    argv.push_back(a.c_str());
  clang::CreateInvocationOptions create;
  create.Diags = clang::CompilerInstance::createDiagnostics(diag_options.get(), &printer, false);
  create.VFS = vfs;
  std::shared_ptr<clang::CompilerInvocation> invocation = clang::createInvocation(argv, create);
  if (!invocation)
    throw loops::CodegenError(
        fmt::format("Clang rejects the C++ backend's command line:\n{}", diagnostics));

  // The driver names the object after the (virtual) source; write it where asked.
  if (!object_path.empty()) invocation->getFrontendOpts().OutputFile = object_path;
  clang::CompilerInstance ci;
  ci.setInvocation(std::move(invocation));
  ci.createDiagnostics(&printer, false);
  ci.createFileManager(vfs);
  const bool ok = ci.ExecuteAction(action);
  diag_stream.flush();
  if (!ok || ci.getDiagnostics().hasErrorOccurred())
    throw loops::CodegenError(
        fmt::format("the generated C++ of {} does not compile:\n{}", file_name, diagnostics));
}

} // namespace

std::string compiler_identity(const CompileOptions& options) {
  std::string out = clang::getClangFullVersion();
  for (const std::string& arg : command_line("source.cpp", target_spec(options), options, {}))
    out += " " + arg;
  out += "\n";
  out += kAbiHeader;
  out += kAbiKernelsDef;
  return out;
}

ClangModule compile_to_module(const std::string& source, const std::string& file_name,
                              const CompileOptions& options) {
  ClangModule out;
  out.context = std::make_unique<llvm::LLVMContext>();
  clang::EmitLLVMOnlyAction action(out.context.get());
  run(action, source, file_name, options, {});
  out.module = action.takeModule();
  if (!out.module)
    throw loops::CodegenError(fmt::format("Clang made no module from {}", file_name));
  return out;
}

void compile_to_object(const std::string& source, const std::string& file_name,
                       const std::string& object_path, const CompileOptions& options) {
  clang::EmitObjAction action;
  run(action, source, file_name, options, object_path);
}

} // namespace plastic::backend::cpp::detail
