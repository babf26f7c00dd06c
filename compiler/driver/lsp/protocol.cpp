// The LSP's framing and positions (see protocol.h).
#include "compiler/driver/lsp/protocol.h"

#include <istream>
#include <ostream>

namespace plastic::driver::lsp {
namespace {

/// A client's message is a page of model text; a frame claiming more is
/// not one (and must not make the server allocate it).
constexpr size_t kLargestMessage = size_t{64} << 20;

bool is_continuation_byte(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

/// UTF-16 code units of the UTF-8 sequence starting with `lead`.
uint32_t utf16_units(unsigned char lead) {
  return lead >= 0xF0 ? 2 : 1;
}

} // namespace

Incoming read_message(std::istream& in) {
  Incoming result;
  std::optional<size_t> length;
  std::string line;
  while (true) {
    if (!std::getline(in, line)) {
      result.end = true;
      return result;
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) break; // the blank line between header and body
    static const std::string kLength = "Content-Length:";
    if (line.compare(0, kLength.size(), kLength) == 0) {
      try {
        length = std::stoull(line.substr(kLength.size()));
      } catch (const std::exception&) {
        result.error = "a Content-Length that is not a number: " + line;
      }
    }
  }
  if (!result.error.empty()) return result;
  if (!length || *length > kLargestMessage) {
    result.error = length ? "a message over 64 MB" : "a message without Content-Length";
    return result;
  }
  std::string body(*length, '\0');
  if (!in.read(body.data(), static_cast<std::streamsize>(body.size()))) {
    result.end = true;
    return result;
  }
  result.message = json::parse(body, nullptr, false);
  if (result.message->is_discarded()) {
    result.message.reset();
    result.error = "a message that is not JSON";
  }
  return result;
}

void write_message(std::ostream& out, const json& message) {
  // Invalid UTF-8 in a model (echoed in a hover or diagnostic) is replaced,
  // not thrown on: a server must not die of a byte in the user's file.
  const std::string body = message.dump(-1, ' ', false, json::error_handler_t::replace);
  out << "Content-Length: " << body.size() << "\r\n\r\n" << body;
  out.flush();
}

json position_at(const dsl::SourceFile& file, uint32_t offset, PositionEncoding encoding) {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(file.text().size()));
  const auto lc = file.line_col(offset);
  uint32_t character = lc.col - 1;
  if (encoding == PositionEncoding::Utf16) {
    const std::string_view line = file.line_text(lc.line);
    character = 0;
    for (uint32_t i = 0; i < lc.col - 1 && i < line.size(); ++i) {
      const auto c = static_cast<unsigned char>(line[i]);
      if (!is_continuation_byte(c)) character += utf16_units(c);
    }
  }
  return {{"line", lc.line - 1}, {"character", character}};
}

json range_of(const dsl::SourceFile& file, uint32_t begin, uint32_t end,
              PositionEncoding encoding) {
  return {{"start", position_at(file, begin, encoding)}, {"end", position_at(file, end, encoding)}};
}

uint32_t offset_at(const dsl::SourceFile& file, const json& position, PositionEncoding encoding) {
  const auto line_number = position.value("line", int64_t{0});
  const auto character = position.value("character", int64_t{0});
  if (line_number < 0) return 0;
  if (line_number >= file.line_count()) return static_cast<uint32_t>(file.text().size());
  const std::string_view line = file.line_text(static_cast<uint32_t>(line_number) + 1);
  const auto line_start = static_cast<uint32_t>(line.data() - file.text().data());
  uint32_t byte = 0;
  int64_t units = 0;
  while (byte < line.size() && units < character) {
    const auto c = static_cast<unsigned char>(line[byte]);
    units += encoding == PositionEncoding::Utf16 ? utf16_units(c) : 1;
    ++byte;
    if (encoding == PositionEncoding::Utf16)
      while (byte < line.size() && is_continuation_byte(static_cast<unsigned char>(line[byte])))
        ++byte;
  }
  return line_start + byte;
}

} // namespace plastic::driver::lsp
