// The language server's lifecycle and dispatch (see server.h).
#include "compiler/driver/lsp/server.h"

#include "compiler/driver/lsp/features.h"

#include <istream>
#include <ostream>
#include <set>

namespace plastic::driver::lsp {
namespace {

// JSON-RPC and LSP error codes.
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
constexpr int kServerNotInitialized = -32002;

struct RequestError {
  int code;
  std::string message;
};

json error_response(const json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

/// UTF-8 if the client offers it (LSP 3.17): no conversion, no ambiguity.
PositionEncoding choose_encoding(const json& params) {
  const json* offered = nullptr;
  if (params.contains("capabilities") && params["capabilities"].contains("general"))
    if (const json& general = params["capabilities"]["general"];
        general.contains("positionEncodings"))
      offered = &general["positionEncodings"];
  if (offered && offered->is_array())
    for (const json& e : *offered)
      if (e == "utf-8") return PositionEncoding::Utf8;
  return PositionEncoding::Utf16;
}

} // namespace

bool Server::handle(const json& message) {
  if (!message.is_object() || !message.contains("method") || !message["method"].is_string()) {
    // A response to a request we never sent, or nonsense: nothing to answer.
    if (message.is_object() && message.contains("id") && !message.contains("result") &&
        !message.contains("error"))
      write_message(out_, error_response(message["id"], kInvalidRequest, "no method"));
    return true;
  }
  const std::string method = message["method"];
  const json params = message.value("params", json::object());
  if (!message.contains("id")) { // a notification: never answered
    if (method == "exit") return false;
    if (!initialized_) return true;
    try {
      notify(method, params);
    } catch (const std::exception& e) {
      log_ << "plastic lsp: " << method << ": " << e.what() << "\n";
    }
    return true;
  }
  const json& id = message["id"];
  if (!initialized_ && method != "initialize") {
    write_message(out_, error_response(id, kServerNotInitialized, "initialize first"));
    return true;
  }
  try {
    write_message(out_, {{"jsonrpc", "2.0"}, {"id", id}, {"result", respond(method, params)}});
  } catch (const RequestError& e) {
    write_message(out_, error_response(id, e.code, e.message));
  } catch (const json::exception& e) {
    write_message(out_, error_response(id, kInvalidParams, e.what()));
  } catch (const std::exception& e) {
    // A bug answering one request must not take the editor's server down.
    log_ << "plastic lsp: internal error (a bug in Plastic) in " << method << ": " << e.what()
         << "\n";
    write_message(out_, error_response(id, kInternalError, e.what()));
  }
  return true;
}

json Server::respond(const std::string& method, const json& params) {
  if (method == "initialize") return initialize(params);
  if (method == "shutdown") {
    shut_down_ = true;
    return nullptr;
  }
  if (method == "textDocument/documentSymbol") {
    auto it = documents_.find(params.at("textDocument").at("uri").get<std::string>());
    return it == documents_.end() ? json::array() : document_symbols(*it->second, encoding_);
  }
  static const std::set<std::string> kAtPosition = {"textDocument/hover", "textDocument/definition",
                                                    "textDocument/references",
                                                    "textDocument/completion"};
  if (!kAtPosition.count(method))
    throw RequestError{kMethodNotFound, "plastic lsp does not handle " + method};
  const auto [doc, offset] = locate(params);
  if (method == "textDocument/hover") return doc ? hover(*doc, offset, encoding_) : nullptr;
  if (method == "textDocument/definition")
    return doc ? definition(*doc, offset, encoding_) : nullptr;
  if (method == "textDocument/references") {
    const bool with_declaration =
        params.contains("context") && params["context"].value("includeDeclaration", false);
    return doc ? references(*doc, offset, with_declaration, encoding_) : json::array();
  }
  return doc ? completion(*doc, offset) : json::array();
}

void Server::notify(const std::string& method, const json& params) {
  if (method == "textDocument/didOpen")
    open(params);
  else if (method == "textDocument/didChange")
    change(params);
  else if (method == "textDocument/didClose")
    close(params);
  // Everything else (initialized, $/cancelRequest, didSave, …) needs nothing.
}

json Server::initialize(const json& params) {
  initialized_ = true;
  encoding_ = choose_encoding(params);
  return {{"capabilities",
           {{"positionEncoding", encoding_ == PositionEncoding::Utf8 ? "utf-8" : "utf-16"},
            {"textDocumentSync", {{"openClose", true}, {"change", 1}}}, // 1: the whole text
            {"hoverProvider", true},
            {"definitionProvider", true},
            {"referencesProvider", true},
            {"documentSymbolProvider", true},
            {"completionProvider", {{"triggerCharacters", json::array()}}}}},
          {"serverInfo", {{"name", "plastic"}, {"version", PLASTIC_VERSION}}}};
}

void Server::open(const json& params) {
  const json& td = params.at("textDocument");
  auto doc = analyze(td.at("uri"), td.value("version", int64_t{0}), td.at("text"));
  publish(*doc);
  documents_[doc->uri] = std::move(doc);
}

void Server::change(const json& params) {
  const json& td = params.at("textDocument");
  const json& changes = params.at("contentChanges");
  if (!changes.is_array() || changes.empty()) return;
  // Full synchronisation: the last change holds the whole text.
  auto doc = analyze(td.at("uri"), td.value("version", int64_t{0}), changes.back().at("text"));
  publish(*doc);
  documents_[doc->uri] = std::move(doc);
}

void Server::close(const json& params) {
  const std::string uri = params.at("textDocument").at("uri");
  documents_.erase(uri);
  write_message(out_, {{"jsonrpc", "2.0"},
                       {"method", "textDocument/publishDiagnostics"},
                       {"params", {{"uri", uri}, {"diagnostics", json::array()}}}});
}

void Server::publish(const Document& doc) {
  write_message(out_, {{"jsonrpc", "2.0"},
                       {"method", "textDocument/publishDiagnostics"},
                       {"params",
                        {{"uri", doc.uri},
                         {"version", doc.version},
                         {"diagnostics", diagnostics_json(doc, encoding_)}}}});
}

std::pair<const Document*, uint32_t> Server::locate(const json& params) const {
  auto it = documents_.find(params.at("textDocument").at("uri").get<std::string>());
  if (it == documents_.end()) return {nullptr, 0};
  return {it->second.get(), offset_at(*it->second->file, params.at("position"), encoding_)};
}

int run_server(std::istream& in, std::ostream& out, std::ostream& log) {
  Server server(out, log);
  while (true) {
    Incoming incoming = read_message(in);
    if (incoming.end) return 1; // the client went away without `exit`
    if (!incoming.message) {
      log << "plastic lsp: " << incoming.error << "\n";
      write_message(out, error_response(nullptr, kParseError, incoming.error));
      continue;
    }
    if (!server.handle(*incoming.message)) return server.exit_code();
  }
}

} // namespace plastic::driver::lsp
