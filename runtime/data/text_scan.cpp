// Scanning helpers for the text readers (see text_scan.h).
#include "runtime/data/text_scan.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <system_error>

#include <fmt/format.h>

#include "runtime/support/machine_memory.h"

namespace plastic::rt::data_detail {

using rt::largest_readable_file;

std::optional<DataError> read_file(const std::filesystem::path& path, const std::string& shown,
                                   std::string& out) {
  // Opened without blocking: a FIFO named like a data file would otherwise
  // wait forever for a writer (and a signal could not end the wait).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return file_error(shown,
                      fmt::format("cannot open the file for reading: {}", std::strerror(errno)));
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const bool dir = S_ISDIR(st.st_mode);
    ::close(fd);
    return file_error(shown, dir ? "is a directory, not a data file"
                                 : "is not a regular file (a FIFO, socket or device); Plastic "
                                   "reads data from files it can read twice");
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > largest_readable_file()) {
    ::close(fd);
    return file_error(shown, fmt::format("the file has {:.1f} GB, more than this machine's memory "
                                         "allows reading at once ({:.1f} GB)",
                                         static_cast<double>(size) / 1e9,
                                         static_cast<double>(largest_readable_file()) / 1e9));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  // stdio rather than iostreams: one fread per chunk, no locale machinery.
  std::unique_ptr<std::FILE, Closer> file(::fdopen(fd, "rb"));
  if (!file) {
    ::close(fd);
    return file_error(shown, "cannot open the file for reading");
  }
  out.clear();
  out.reserve(size);
  char chunk[1 << 16];
  for (;;) {
    const std::size_t got = std::fread(chunk, 1, sizeof chunk, file.get());
    out.append(chunk, got);
    if (got < sizeof chunk) break;
  }
  if (std::ferror(file.get())) return file_error(shown, "read error");
  return std::nullopt;
}

bool LineReader::next(std::string_view& line) {
  if (pos_ >= text_.size()) return false;
  std::size_t end = text_.find('\n', pos_);
  std::size_t next = end + 1;
  if (end == std::string_view::npos) end = next = text_.size();
  std::size_t stop = end;
  if (stop > pos_ && text_[stop - 1] == '\r') --stop;
  line = text_.substr(pos_, stop - pos_);
  pos_ = next;
  ++line_number_;
  return true;
}

namespace {
char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}
} // namespace

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = lower(c);
  return out;
}

NumberStatus parse_number(std::string_view token, double& out, char decimal_point) {
  if (token.empty()) return NumberStatus::Invalid;
  if (iequals(token, "nan") || iequals(token, "+nan") || iequals(token, "-nan")) {
    out = std::numeric_limits<double>::quiet_NaN();
    return NumberStatus::Ok;
  }
  // from_chars takes no '+' sign; accept one only before a digit or point
  // so that "+-1" and "+nan(…)" stay invalid.
  if (token.front() == '+') {
    if (token.size() < 2 || !((token[1] >= '0' && token[1] <= '9') || token[1] == decimal_point))
      return NumberStatus::Invalid;
    token.remove_prefix(1);
  }
  char buffer[64];
  if (decimal_point != '.') {
    if (token.size() > sizeof buffer) return NumberStatus::Invalid;
    for (std::size_t i = 0; i < token.size(); ++i) {
      if (token[i] == '.') return NumberStatus::Invalid;
      buffer[i] = token[i] == decimal_point ? '.' : token[i];
    }
    token = std::string_view(buffer, token.size());
  }
  double value = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec == std::errc::result_out_of_range) return NumberStatus::OutOfRange;
  if (ec != std::errc() || end != token.data() + token.size()) return NumberStatus::Invalid;
  if (std::isinf(value)) return NumberStatus::Infinite;
  // "nan(chars)" and similar spellings reach here only through from_chars;
  // keep NaN as the one canonical missing value.
  out = std::isnan(value) ? std::numeric_limits<double>::quiet_NaN() : value;
  return NumberStatus::Ok;
}

std::string number_message(std::string_view what, NumberStatus status, std::string_view token) {
  switch (status) {
  case NumberStatus::Infinite:
    return fmt::format("expected {}, found {} (infinite values are not accepted)", what,
                       found_token(token));
  case NumberStatus::OutOfRange:
    return fmt::format("expected {}, found {} (out of the range of a double)", what,
                       found_token(token));
  default:
    return fmt::format("expected {}, found {}", what, found_token(token));
  }
}

namespace {

// Control bytes as C writes them (ESC is \x1b): a message never carries a
// raw one to the terminal, and "expected 'HR', found 'HR'" cannot happen
// when the cell starts with an invisible byte.
std::string printable(std::string_view text) {
  std::string out;
  for (char ch : text) {
    const auto u = static_cast<unsigned char>(ch);
    if (u < 0x20 || u == 0x7F)
      out += fmt::format("\\x{:02x}", u);
    else
      out += ch;
  }
  return out;
}

} // namespace

std::string found_token(std::string_view token, std::string_view line, std::size_t pos) {
  if (!token.empty()) {
    constexpr std::size_t kMax = 24;
    if (token.size() > kMax) return fmt::format("'{}...'", printable(token.substr(0, kMax)));
    return fmt::format("'{}'", printable(token));
  }
  if (pos < line.size()) return fmt::format("'{}'", printable(line.substr(pos, 1)));
  return "end of line";
}

} // namespace plastic::rt::data_detail
