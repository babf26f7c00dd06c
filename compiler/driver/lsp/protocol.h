// The Language Server Protocol's wire format: JSON-RPC messages framed by a
// `Content-Length` header on a byte stream (stdin and stdout), and the
// protocol's positions — a line and a character offset counted in UTF-16
// code units unless the client agrees to UTF-8 — converted to and from the
// byte offsets the front end's spans use.
#pragma once

#include "dsl/source.h"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <optional>
#include <string>

namespace plastic::driver::lsp {

using nlohmann::json;

/// What reading a message gave: a message, the end of the stream, or a
/// frame that was not one (a bad header or body), with why.
struct Incoming {
  std::optional<json> message;
  bool end = false;
  std::string error;
};

Incoming read_message(std::istream& in);
void write_message(std::ostream& out, const json& message);

enum class PositionEncoding { Utf16, Utf8 };

/// An LSP position {line, character} for a byte offset into `file`.
json position_at(const dsl::SourceFile& file, uint32_t offset, PositionEncoding encoding);
/// An LSP range for a span of `file`.
json range_of(const dsl::SourceFile& file, uint32_t begin, uint32_t end, PositionEncoding encoding);
/// The byte offset of an LSP position (clamped to the line and the file).
uint32_t offset_at(const dsl::SourceFile& file, const json& position, PositionEncoding encoding);

} // namespace plastic::driver::lsp
