// Child processes for the trials of a search (see job_pool.h).
#include "compiler/driver/tune/job_pool.h"

#include <chrono>
#include <csignal>
#include <deque>
#include <fcntl.h>
#include <map>
#include <string_view>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "runtime/support/interrupt.h"

namespace plastic::driver {

namespace {

/// The environment of a trial: this process's without the variables an MPI
/// launcher sets, so that a trial started by one rank of `mpirun plastic
/// tune` is a process of its own, not a stray rank of the job.
std::vector<std::string> trial_environment() {
  static constexpr const char* kLauncher[] = {"OMPI_",  "PMIX_",  "PMI_",  "OPAL_",
                                              "HYDRA_", "I_MPI_", "MPICH_"};
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string_view var(*e);
    bool launcher = false;
    for (const char* prefix : kLauncher)
      launcher = launcher || var.starts_with(prefix);
    if (!launcher) env.emplace_back(var);
  }
  return env;
}

/// Starts one job; -1 when fork failed. Only async-signal-safe calls run
/// between fork and exec: the arguments are prepared before.
pid_t start(const Job& job) {
  static const std::vector<std::string> environment = trial_environment();
  std::vector<char*> env;
  env.reserve(environment.size() + 1);
  for (const std::string& e : environment)
    env.push_back(const_cast<char*>(e.c_str()));
  env.push_back(nullptr);
  std::vector<char*> args;
  args.reserve(job.argv.size() + 1);
  for (const std::string& a : job.argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::string log = job.log.string();
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid != 0) return pid;
  setpgid(0, 0); // its own group: the terminal's Ctrl-C reaches the search only
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) _exit(143); // the search died before prctl took effect
  const int out = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  const int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (out < 0 || in < 0) _exit(127);
  dup2(in, STDIN_FILENO);
  dup2(out, STDOUT_FILENO);
  dup2(out, STDERR_FILENO);
  execve("/proc/self/exe", args.data(), env.data());
  _exit(127);
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

} // namespace

bool JobPool::run() {
  std::deque<Job> waiting(std::make_move_iterator(queue_.begin()),
                          std::make_move_iterator(queue_.end()));
  queue_.clear();
  std::map<pid_t, Job> running;
  bool passed_on = false;
  while (!waiting.empty() || !running.empty()) {
    const bool interrupted = rt::InterruptGuard::requested();
    if (interrupted && !passed_on) {
      const int sig = rt::InterruptGuard::exit_code() == 143 ? SIGTERM : SIGINT;
      for (const auto& [pid, job] : running)
        kill(pid, sig);
      passed_on = true;
    }
    while (!interrupted && !waiting.empty() && static_cast<int>(running.size()) < slots_) {
      Job job = std::move(waiting.front());
      waiting.pop_front();
      const pid_t pid = start(job);
      if (pid < 0) {
        if (job.done) job.done(127);
        continue;
      }
      if (job.started) job.started();
      running.emplace(pid, std::move(job));
    }
    if (interrupted && running.empty()) break;
    bool any_ended = false;
    for (auto it = running.begin(); it != running.end();) {
      int status = 0;
      if (waitpid(it->first, &status, WNOHANG) != it->first) {
        ++it;
        continue;
      }
      Job job = std::move(it->second);
      it = running.erase(it);
      any_ended = true;
      if (job.done) job.done(exit_code_of(status));
    }
    if (!any_ended) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return !rt::InterruptGuard::requested();
}

std::string self_executable() {
  std::error_code ec;
  const std::string path = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  const std::string deleted = " (deleted)"; // the file was replaced since
  if (ec) return "plastic";
  return path.size() > deleted.size() && path.ends_with(deleted)
             ? path.substr(0, path.size() - deleted.size())
             : path;
}

} // namespace plastic::driver
