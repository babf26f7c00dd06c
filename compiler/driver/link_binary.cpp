// The system linker and archiver, and the link manifest (see link_binary.h).
#include "compiler/driver/link_binary.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

namespace plastic::driver {

namespace fs = std::filesystem;

namespace {

// The folder of the running executable (not of argv[0], which may be a
// name found on PATH or a symlink).
fs::path executable_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::current_path() : exe.parent_path();
}

bool is_executable(const fs::path& p) {
  return ::access(p.c_str(), X_OK) == 0 && !fs::is_directory(p);
}

// `name` as execvp would find it: a path as is, a bare name on PATH.
bool on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return is_executable(name);
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && is_executable(fs::path(dir) / name)) return true;
  return false;
}

} // namespace

std::vector<std::string> find_tool(const char* env_var, const char* fallback, std::string& error) {
  std::vector<std::string> argv;
  const char* env = std::getenv(env_var);
  if (env && *env) {
    std::stringstream words(env);
    for (std::string w; words >> w;)
      argv.push_back(w);
    if (!argv.empty() && on_path(argv[0])) return argv;
    error = fmt::format("${} is '{}', which is not a program that can be run", env_var, env);
    return {};
  }
  if (on_path(fallback)) return {fallback};
  error = fmt::format("${} is not set and `{}` is not on PATH", env_var, fallback);
  return {};
}

std::vector<std::string> model_link_items(std::string& error) {
  const fs::path dir = executable_dir();
  const fs::path candidates[] = {dir / "plastic-model-link.txt",
                                 dir / ".." / "lib" / "plastic" / "plastic-model-link.txt"};
  for (const fs::path& manifest : candidates) {
    std::ifstream in(manifest);
    if (!in) continue;
    std::vector<std::string> items;
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      // Flags as they are; library paths relative to the manifest's folder.
      if (line[0] == '-' || fs::path(line).is_absolute())
        items.push_back(line);
      else
        items.push_back((manifest.parent_path() / line).lexically_normal().string());
    }
    for (const std::string& item : items)
      if (item[0] != '-' && !fs::exists(item)) {
        error = fmt::format("{} names {}, which does not exist (rebuild or reinstall Plastic)",
                            manifest.string(), item);
        return {};
      }
    return items;
  }
  error =
      fmt::format("the runtime libraries to link a model binary with were not found: no {} or {}",
                  candidates[0].string(), candidates[1].lexically_normal().string());
  return {};
}

int run_tool(const std::vector<std::string>& argv, const std::string& log_path) {
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, STDOUT_FILENO);
      ::dup2(fd, STDERR_FILENO);
      ::close(fd);
    }
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  if (::waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} // namespace plastic::driver
