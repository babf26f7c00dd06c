// Reading `.npy` files (see npy.h): the preamble, the header dict, the data.
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "runtime/data/npy.h"
#include "runtime/data/text_scan.h"

namespace plastic::rt {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

// Little-endian unsigned integer of `n` bytes at `p`.
uint64_t little_endian(const char* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i)
    v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

struct Header {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::size_t> shape;
};

// Parses the header dict. `base` is the header's byte offset in the file,
// so errors point into the file.
class HeaderParser {
public:
  HeaderParser(std::string_view text, std::size_t base, const std::string& file)
      : s_(text), base_(base), file_(file) {}

  // header := '{' { key ':' value ',' } [ key ':' value ] '}' blanks
  std::optional<DataError> run(Header& h) {
    bool have_descr = false, have_order = false, have_shape = false;
    skip();
    if (!take('{')) return expected("'{' opening the header dict");
    for (;;) {
      skip();
      if (take('}')) break;
      std::string key;
      const std::size_t key_at = pos_;
      if (auto e = string(key)) return e;
      skip();
      if (!take(':')) return expected("':' after a key");
      skip();
      if (key == "descr") {
        if (pos_ < s_.size() && s_[pos_] == '[')
          return error(pos_, "unsupported dtype: a structured (record) dtype; supported: '<f4', "
                             "'<f8', '<i4', '<i8'");
        descr_at_ = pos_;
        if (auto e = string(h.descr)) return e;
        have_descr = true;
      } else if (key == "fortran_order") {
        order_at_ = pos_;
        if (s_.substr(pos_, 4) == "True")
          h.fortran_order = true, pos_ += 4;
        else if (s_.substr(pos_, 5) == "False")
          h.fortran_order = false, pos_ += 5;
        else
          return expected("True or False");
        have_order = true;
      } else if (key == "shape") {
        if (auto e = shape(h.shape)) return e;
        have_shape = true;
      } else {
        return error(
            key_at,
            fmt::format(
                "unexpected key '{}' in the header (expected 'descr', 'fortran_order', 'shape')",
                key));
      }
      skip();
      if (take('}')) break;
      if (!take(',')) return expected("',' or '}' after a value");
    }
    skip();
    if (pos_ != s_.size()) return expected("only blanks after the header dict");
    if (!have_descr || !have_order || !have_shape)
      return error(
          0, fmt::format("expected the keys 'descr', 'fortran_order' and 'shape'; '{}' is missing",
                         !have_descr   ? "descr"
                         : !have_order ? "fortran_order"
                                       : "shape"));
    return std::nullopt;
  }

  std::size_t descr_offset() const { return base_ + descr_at_; }
  std::size_t order_offset() const { return base_ + order_at_; }

private:
  DataError error(std::size_t at, std::string message) const {
    return binary_error(file_, static_cast<int64_t>(base_ + at), std::move(message));
  }
  DataError expected(std::string_view what) const {
    const std::string found =
        pos_ < s_.size() ? fmt::format("'{}'", s_[pos_]) : "the end of the header";
    return error(pos_, fmt::format("expected {} in the header, found {}", what, found));
  }
  void skip() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r'))
      ++pos_;
  }
  bool take(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) return ++pos_, true;
    return false;
  }
  std::optional<DataError> string(std::string& out) {
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"'))
      return expected("a quoted string");
    const char quote = s_[pos_];
    const std::size_t end = s_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) return expected("a closing quote");
    out = std::string(s_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return std::nullopt;
  }
  // shape := '(' [ int { ',' int } [ ',' ] ] ')'
  std::optional<DataError> shape(std::vector<std::size_t>& out) {
    if (!take('(')) return expected("'(' opening the shape tuple");
    for (;;) {
      skip();
      if (take(')')) return std::nullopt;
      std::size_t n = 0;
      const auto [end, ec] = std::from_chars(s_.data() + pos_, s_.data() + s_.size(), n);
      if (ec != std::errc() || end == s_.data() + pos_)
        return expected("a non-negative integer dimension");
      pos_ = static_cast<std::size_t>(end - s_.data());
      out.push_back(n);
      skip();
      if (take(')')) return std::nullopt;
      if (!take(',')) return expected("',' or ')' in the shape");
    }
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  std::size_t base_;
  const std::string& file_;
  std::size_t descr_at_ = 0, order_at_ = 0;
};

template <class T> T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::big) {
    auto* b = reinterpret_cast<unsigned char*>(&v);
    for (std::size_t i = 0; i < sizeof v / 2; ++i)
      std::swap(b[i], b[sizeof v - 1 - i]);
  }
  return v;
}

/// An error at byte `at` of `file`.
DataError byte_error(const std::string& file, std::size_t at, std::string message) {
  return binary_error(file, static_cast<int64_t>(at), std::move(message));
}

/// Where the header dict lies in the file.
struct Preamble {
  std::size_t header_at = 0, header_len = 0;
};

/// Reads the magic string, the format version and the header length.
Result<Preamble, DataError> read_preamble(std::string_view bytes, const std::string& file) {
  if (bytes.size() < kMagic.size() || bytes.substr(0, kMagic.size()) != kMagic)
    return byte_error(file, 0, "expected the .npy magic string \\x93NUMPY (not a NumPy .npy file)");
  if (bytes.size() < 10)
    return byte_error(file, bytes.size(),
                      "expected the format version and header length, found end of file");
  const int major = static_cast<unsigned char>(bytes[6]);
  const int minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0)
    return byte_error(
        file, 6,
        fmt::format("unsupported .npy format version {}.{} (supported: 1.0, 2.0, 3.0)", major,
                    minor));
  // Version 1.0 stores the header length in 2 bytes, 2.0 and 3.0 in 4.
  const int len_bytes = major == 1 ? 2 : 4;
  const std::size_t header_at = 8 + static_cast<std::size_t>(len_bytes);
  if (bytes.size() < header_at)
    return byte_error(file, bytes.size(), "expected the header length, found end of file");
  const auto header_len = static_cast<std::size_t>(little_endian(bytes.data() + 8, len_bytes));
  if (bytes.size() - header_at < header_len)
    return byte_error(file, bytes.size(),
                      fmt::format("expected a header of {} bytes, found end of file", header_len));
  return Preamble{header_at, header_len};
}

/// The dtype `descr` names; `at` is its offset in the file, for a refusal.
Result<NpyDtype, DataError> dtype_of(const std::string& descr, std::size_t at,
                                     const std::string& file) {
  if (descr == "<f4") return NpyDtype::F32;
  if (descr == "<f8") return NpyDtype::F64;
  if (descr == "<i4") return NpyDtype::I32;
  if (descr == "<i8") return NpyDtype::I64;
  return byte_error(file, at,
                    fmt::format("unsupported dtype '{}'{} (supported: '<f4', '<f8', '<i4', '<i8')",
                                descr, !descr.empty() && descr[0] == '>' ? ", big-endian" : ""));
}

/// Elements of `shape`, or nullopt when their bytes (`item` each) overflow.
std::optional<std::size_t> element_count(const std::vector<std::size_t>& shape, std::size_t item) {
  std::size_t count = 1;
  for (std::size_t d : shape) {
    if (d != 0 && count > std::numeric_limits<std::size_t>::max() / item / d) return std::nullopt;
    count *= d;
  }
  return count;
}

/// Checks that exactly `size` bytes of data follow the header (from `data_at`).
std::optional<DataError> check_data_size(std::string_view bytes, std::size_t data_at,
                                         std::size_t size, const Header& h,
                                         const std::string& file) {
  const std::size_t have = bytes.size() - data_at;
  if (have < size)
    return byte_error(
        file, bytes.size(),
        fmt::format("expected {} bytes of {} data for shape ({}), found {} (truncated file)", size,
                    h.descr, fmt::join(h.shape, ", "), have));
  if (have > size)
    return byte_error(file, data_at + size,
                      fmt::format("expected the file to end after {} bytes of data, found {} more",
                                  size, have - size));
  return std::nullopt;
}

/// Decodes `out.data.size()` elements of `out.dtype`, `item` bytes each, from `p`.
void decode(const char* p, std::size_t item, NpyArray& out) {
  for (std::size_t i = 0; i < out.data.size(); ++i, p += item) {
    switch (out.dtype) {
    case NpyDtype::F32:
      out.data[i] = load<float>(p);
      break;
    case NpyDtype::F64:
      out.data[i] = load<double>(p);
      break;
    case NpyDtype::I32:
      out.data[i] = load<int32_t>(p);
      break;
    case NpyDtype::I64:
      out.data[i] = static_cast<double>(load<int64_t>(p));
      break;
    }
  }
}

} // namespace

const char* npy_descr(NpyDtype dtype) {
  switch (dtype) {
  case NpyDtype::F32:
    return "<f4";
  case NpyDtype::F64:
    return "<f8";
  case NpyDtype::I32:
    return "<i4";
  case NpyDtype::I64:
    return "<i8";
  }
  return "?";
}

Result<NpyArray, DataError> parse_npy(std::string_view bytes, const std::string& file_name) {
  try {
    auto preamble = read_preamble(bytes, file_name);
    if (!preamble) return preamble.error();
    const auto [header_at, header_len] = preamble.value();
    Header h;
    HeaderParser parser(bytes.substr(header_at, header_len), header_at, file_name);
    if (auto e = parser.run(h)) return *e;
    NpyArray out;
    auto dtype = dtype_of(h.descr, parser.descr_offset(), file_name);
    if (!dtype) return dtype.error();
    out.dtype = dtype.value();
    if (h.fortran_order)
      return byte_error(file_name, parser.order_offset(),
                        "unsupported Fortran-order (column-major) array; save it C-ordered "
                        "(numpy.ascontiguousarray)");
    const std::size_t item = out.dtype == NpyDtype::F32 || out.dtype == NpyDtype::I32 ? 4 : 8;
    const std::optional<std::size_t> count = element_count(h.shape, item);
    if (!count) return byte_error(file_name, header_at, "the shape's element count overflows");
    const std::size_t data_at = header_at + header_len;
    if (auto e = check_data_size(bytes, data_at, *count * item, h, file_name)) return *e;
    out.shape = std::move(h.shape);
    out.data.resize(*count);
    decode(bytes.data() + data_at, item, out);
    return out;
  } catch (const std::exception& e) { // only allocation failure can get here
    return file_error(file_name, fmt::format("internal error while reading: {}", e.what()));
  }
}

Result<NpyArray, DataError> read_npy(const std::filesystem::path& file) {
  const std::string shown = file.string();
  std::string bytes;
  try {
    if (auto e = data_detail::read_file(file, shown, bytes)) return *e;
  } catch (const std::exception& e) {
    return file_error(shown, fmt::format("internal error while reading: {}", e.what()));
  }
  return parse_npy(bytes, shown);
}

} // namespace plastic::rt
