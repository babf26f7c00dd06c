// Expansion of model paths given on the command line.
#include "compiler/driver/commands.h"

#include <algorithm>
#include <filesystem>

namespace plastic::driver {

std::vector<std::string> expand_model_paths(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      for (auto it = fs::recursive_directory_iterator(p, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (it->is_regular_file(ec) && it->path().extension() == ".ode")
          found.push_back(it->path().string());
      std::sort(found.begin(), found.end());
      out.insert(out.end(), found.begin(), found.end());
    } else {
      out.push_back(p);
    }
  }
  return out;
}

} // namespace plastic::driver
