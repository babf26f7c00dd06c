// `plastic lsp`: a Language Server Protocol server over stdin and stdout.
//
// Editors start it and speak JSON-RPC to it (protocol.h). It keeps each
// open `.ode` document, checks it on every change with the same front end
// as `plastic check`, publishes the diagnostics (with their hints), and
// answers hover, go to definition, references, completion and the outline
// from the check's symbol index (features.h). Logs go to stderr, which
// editors show as the server's output.
#pragma once

#include "compiler/driver/lsp/document.h"

#include <iosfwd>
#include <map>
#include <memory>

namespace plastic::driver::lsp {

class Server {
public:
  Server(std::ostream& out, std::ostream& log) : out_(out), log_(log) {}

  /// Handles one message; false once the client sent `exit`.
  bool handle(const json& message);
  /// The process's exit code after `exit`: 0 if `shutdown` came first (LSP).
  int exit_code() const { return shut_down_ ? 0 : 1; }

private:
  json respond(const std::string& method, const json& params);
  void notify(const std::string& method, const json& params);
  json initialize(const json& params);
  void open(const json& params);
  void change(const json& params);
  void close(const json& params);
  void publish(const Document& doc);
  /// The document and byte offset a TextDocumentPositionParams names.
  std::pair<const Document*, uint32_t> locate(const json& params) const;

  std::ostream& out_;
  std::ostream& log_;
  std::map<std::string, std::unique_ptr<Document>> documents_;
  PositionEncoding encoding_ = PositionEncoding::Utf16;
  bool initialized_ = false, shut_down_ = false;
};

/// Serves one client until `exit` or the end of `in`; returns the exit code.
int run_server(std::istream& in, std::ostream& out, std::ostream& log);

} // namespace plastic::driver::lsp
