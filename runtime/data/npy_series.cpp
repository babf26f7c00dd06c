// A directory of `.npy` arrays, one series each, as a Dataset (see npy.h).
#include <algorithm>
#include <exception>
#include <system_error>

#include <fmt/format.h>

#include "runtime/data/npy.h"
#include "runtime/data/text_scan.h"

namespace plastic::rt {
namespace {

bool digit(char c) {
  return c >= '0' && c <= '9';
}

// Natural order: runs of digits compare as numbers, so rollout_2 < rollout_10.
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && digit(a[ie]))
        ++ie;
      while (je < b.size() && digit(b[je]))
        ++je;
      std::size_t ia = i, jb = j; // skip leading zeros, then longer is larger
      while (ia + 1 < ie && a[ia] == '0')
        ++ia;
      while (jb + 1 < je && b[jb] == '0')
        ++jb;
      if (ie - ia != je - jb) return ie - ia < je - jb;
      const int c = a.compare(ia, ie - ia, b, jb, je - jb);
      if (c != 0) return c < 0;
      i = ie, j = je;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i, ++j;
    }
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return a < b;
}

} // namespace

Result<Dataset, DataError> read_npy_series(const std::filesystem::path& directory) {
  namespace fs = std::filesystem;
  const std::string shown = directory.string();
  try {
    std::error_code ec;
    if (!fs::is_directory(directory, ec))
      return file_error(shown, "not a directory (expected one .npy file per series)");
    std::vector<std::string> names;
    for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".npy") names.push_back(it->path().filename().string());
    if (ec) return file_error(shown, fmt::format("cannot list the directory: {}", ec.message()));
    if (names.empty()) return file_error(shown, "no .npy files in the directory");
    std::sort(names.begin(), names.end(), natural_less);

    Dataset data;
    data.name = directory.filename().empty() ? directory.parent_path().filename().string()
                                             : directory.filename().string();
    std::string bytes;
    std::size_t channels = 0;
    std::string first;
    for (const std::string& name : names) {
      const fs::path path = directory / name;
      const std::string file = path.string();
      if (auto e = data_detail::read_file(path, file, bytes)) return *e;
      auto array = parse_npy(bytes, file);
      if (!array) return array.error();
      const auto& shape = array->shape;
      if (shape.empty() || shape.size() > 2 || shape[0] == 0)
        return file_error(
            file, fmt::format("expected a [T, C] or [T] array with T >= 1, found shape ({})",
                              fmt::join(shape, ", ")));
      const std::size_t c = shape.size() == 2 ? shape[1] : 1;
      if (first.empty()) {
        channels = c;
        first = name;
        for (std::size_t k = 0; k < c; ++k)
          data.channels.push_back({fmt::format("dim_{}", k)});
      } else if (c != channels) {
        return file_error(file, fmt::format("expected {} channels as in {}, found shape ({})",
                                            channels, first, fmt::join(shape, ", ")));
      }
      Sample s;
      s.id = path.stem().string();
      s.times.resize(shape[0]);
      for (std::size_t i = 0; i < shape[0]; ++i)
        s.times[i] = static_cast<double>(i);
      s.values = std::move(array->data);
      data.samples.push_back(std::move(s));
    }
    return data;
  } catch (const std::exception& e) {
    return file_error(shown, fmt::format("internal error while reading: {}", e.what()));
  }
}

} // namespace plastic::rt
