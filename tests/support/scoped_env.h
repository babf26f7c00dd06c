// Sets an environment variable for one scope and restores the old value (or
// its absence) when the scope ends, so a test that points Plastic at a
// folder of its own leaves the next test the environment it found.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace plastic::test {

class ScopedEnv {
public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
  const char* name_;
  std::optional<std::string> old_;
};

} // namespace plastic::test
