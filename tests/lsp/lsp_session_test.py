#!/usr/bin/env python3
"""`plastic lsp`, driven as an editor drives it: one JSON-RPC session over
stdin/stdout (initialize → didOpen of a model with an error → diagnostics
with the error's range and hint → hover, definition, references,
completion, outline → didChange that fixes the error → shutdown, exit).

Usage: lsp_session_test.py PLASTIC
"""
import json
import subprocess
import sys
import unittest

PLASTIC = sys.argv.pop(1) if len(sys.argv) > 1 else "build/plastic"
URI = "file:///tmp/hebb%20cde.ode"

# A Hebb-rule FWP in the shape of examples/fwp_hebb_node.ode, small enough
# to read positions from. `Wkk` on the flow's `k` line is the error.
MODEL = """model hebb
dim d_in = 3, heads = 2, d_head = 4
dim d_model = heads * d_head

input x : path[d_in] cubic
input y : target[1]

param Wk  : [heads, d_head, d_in] init glorot_uniform
param Wv  : [heads, d_head, d_in] init glorot_uniform
param out : linear[d_model, 1]

state W : [heads, d_head, d_head] = 0

flow W' =
  let u = x(t)
  let k = softmax(Wkk @ u)
  let v = tanh(Wv @ u)
  outer(k, v)

output logit = out(reshape(W(T), [heads * d_head * d_head])[0:8])
loss mse(logit, y)

solve rk4 step 0.5
gradient direct
"""


def position(text, needle, nth=0, inner=0):
    """The LSP position (line, character) of the nth `needle`, plus `inner` characters."""
    offset = -1
    for _ in range(nth + 1):
        offset = text.index(needle, offset + 1)
    offset += inner
    line = text.count("\n", 0, offset)
    return {"line": line, "character": offset - (text.rfind("\n", 0, offset) + 1)}


class Client:
    def __init__(self):
        self.proc = subprocess.Popen([PLASTIC, "lsp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.next_id = 0

    def send(self, message):
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def send_raw(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def receive(self):
        header = b""
        while not header.endswith(b"\r\n\r\n"):
            byte = self.proc.stdout.read(1)
            if not byte:
                raise EOFError("the server closed its output")
            header += byte
        length = next(int(line.split(b":")[1]) for line in header.split(b"\r\n")
                      if line.startswith(b"Content-Length"))
        return json.loads(self.proc.stdout.read(length))

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        reply = self.receive()
        assert reply.get("id") == self.next_id, reply
        return reply

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def at(self, method, pos, **extra):
        params = {"textDocument": {"uri": URI}, "position": pos}
        params.update(extra)
        return self.request(method, params)


class LspSession(unittest.TestCase):
    def setUp(self):
        self.client = Client()

    def tearDown(self):
        if self.client.proc.poll() is None:
            self.client.proc.kill()
        self.client.proc.wait()
        for stream in (self.client.proc.stdin, self.client.proc.stdout, self.client.proc.stderr):
            stream.close()

    def open_model(self, text=MODEL, encodings=None):
        c = self.client
        capabilities = {"general": {"positionEncodings": encodings}} if encodings else {}
        init = c.request("initialize", {"processId": None, "rootUri": None,
                                        "capabilities": capabilities})
        caps = init["result"]["capabilities"]
        for feature in ("hoverProvider", "definitionProvider", "referencesProvider",
                        "documentSymbolProvider", "completionProvider"):
            self.assertIn(feature, caps)
        self.assertEqual(caps["positionEncoding"], "utf-8" if encodings else "utf-16")
        c.notify("initialized", {})
        c.notify("textDocument/didOpen", {"textDocument": {
            "uri": URI, "languageId": "plastic", "version": 1, "text": text}})
        published = c.receive()
        self.assertEqual(published["method"], "textDocument/publishDiagnostics")
        self.assertEqual(published["params"]["uri"], URI)
        return published["params"]["diagnostics"]

    def test_session(self):
        c = self.client
        diagnostics = self.open_model()
        # The error: its range is exactly `Wkk`, with the checker's hint.
        errors = [d for d in diagnostics if d["severity"] == 1]
        self.assertEqual(len(errors), 1, diagnostics)
        start = position(MODEL, "Wkk")
        self.assertEqual(errors[0]["range"]["start"], start)
        self.assertEqual(errors[0]["range"]["end"], dict(start, character=start["character"] + 3))
        self.assertIn("unknown name 'Wkk'", errors[0]["message"])
        self.assertIn("did you mean 'Wk'?", errors[0]["message"])

        # Hover with the declared shape and the checked one, also beside the error.
        hover = c.at("textDocument/hover", position(MODEL, "Wv @ u"))["result"]
        self.assertIn("param Wv : [heads, d_head, d_in]", hover["contents"]["value"])
        self.assertIn("[2,4,3]", hover["contents"]["value"])
        self.assertEqual(hover["range"]["start"], position(MODEL, "Wv @ u"))
        hover = c.at("textDocument/hover", position(MODEL, "let v", inner=4))["result"]
        self.assertIn("let v : [2,4]", hover["contents"]["value"])
        hover = c.at("textDocument/hover", position(MODEL, "d_model = ", inner=2))["result"]
        self.assertIn("dim d_model = heads * d_head", hover["contents"]["value"])
        self.assertIn("value `8`", hover["contents"]["value"])
        hover = c.at("textDocument/hover", position(MODEL, "W' ="))["result"]
        self.assertIn("state W : [heads, d_head, d_head]", hover["contents"]["value"])
        hover = c.at("textDocument/hover", position(MODEL, "tanh"))["result"]
        self.assertIn("tanh(x)", hover["contents"]["value"])
        self.assertIsNone(c.at("textDocument/hover", position(MODEL, "\n\ninput", inner=1))["result"])

        # Definition: the use of `u` in the `v` line goes to its let.
        loc = c.at("textDocument/definition", position(MODEL, "Wv @ u", inner=5))["result"]
        self.assertEqual(loc["uri"], URI)
        self.assertEqual(loc["range"]["start"], position(MODEL, "let u", inner=4))
        loc = c.at("textDocument/definition", position(MODEL, "W(T)"))["result"]
        self.assertEqual(loc["range"]["start"], position(MODEL, "state W", inner=6))

        # References to `heads`: its declaration and its five uses.
        refs = c.at("textDocument/references", position(MODEL, "heads"),
                    context={"includeDeclaration": True})["result"]
        self.assertEqual(len(refs), MODEL.count("heads"), refs)

        # Completion: what fits after `init` and `solve`, names elsewhere.
        labels = [i["label"] for i in
                  c.at("textDocument/completion", position(MODEL, "glorot_uniform"))["result"]]
        self.assertIn("glorot_uniform", labels)
        self.assertIn("orthogonal", labels)
        self.assertNotIn("softmax", labels)
        labels = [i["label"] for i in
                  c.at("textDocument/completion", position(MODEL, "rk4"))["result"]]
        self.assertIn("dopri5", labels)
        labels = [i["label"] for i in
                  c.at("textDocument/completion", position(MODEL, "outer"))["result"]]
        for visible in ("u", "k", "v", "Wk", "heads", "softmax", "t"):
            self.assertIn(visible, labels)
        labels = [i["label"] for i in
                  c.at("textDocument/completion", position(MODEL, "let k"))["result"]]
        self.assertNotIn("v", labels)  # declared below the cursor
        labels = [i["label"] for i in
                  c.at("textDocument/completion", position(MODEL, "linear["))["result"]]
        self.assertIn("layernorm", labels)
        self.assertIn("mlp", labels)

        # The outline: every top-level declaration, in the file.
        symbols = c.request("textDocument/documentSymbol",
                            {"textDocument": {"uri": URI}})["result"]
        self.assertEqual([s["name"] for s in symbols],
                         ["d_in", "heads", "d_head", "d_model", "x", "y", "Wk", "Wv", "out",
                          "W", "logit"])

        # The fix: diagnostics are cleared for the new version.
        c.notify("textDocument/didChange", {
            "textDocument": {"uri": URI, "version": 2},
            "contentChanges": [{"text": MODEL.replace("Wkk", "Wk")}]})
        published = c.receive()
        self.assertEqual(published["params"]["version"], 2)
        self.assertEqual(published["params"]["diagnostics"], [])

        self.assertIsNone(c.request("shutdown", None)["result"])
        c.notify("exit", None)
        self.assertEqual(c.proc.wait(timeout=10), 0)

    def test_positions_count_utf16_code_units(self):
        # `λ` is one UTF-16 unit in two UTF-8 bytes; `𝛽` two units in four bytes.
        line = '  let k = einsum("λ𝛽", u) + softmax(Wkk @ u)'
        text = MODEL.replace("  let k = softmax(Wkk @ u)", line)
        prefix = line[:line.index("Wkk")]
        for encodings, width in ((None, len(prefix.encode("utf-16-le")) // 2),
                                 (["utf-8"], len(prefix.encode("utf-8")))):
            with self.subTest(encodings=encodings):
                self.tearDown()
                self.client = Client()
                errors = [d for d in self.open_model(text, encodings) if "Wkk" in d["message"]]
                self.assertEqual(errors[0]["range"]["start"]["character"], width)
                hover = self.client.at("textDocument/hover",
                                       {"line": errors[0]["range"]["start"]["line"],
                                        "character": width + len("Wkk @ ")})
                self.assertIn("let u", hover["result"]["contents"]["value"])

    def test_bad_input_is_answered_not_fatal(self):
        c = self.client
        # Before initialize: refused with ServerNotInitialized.
        reply = c.request("textDocument/hover", {"textDocument": {"uri": URI},
                                                 "position": {"line": 0, "character": 0}})
        self.assertEqual(reply["error"]["code"], -32002)
        self.open_model()
        # Not JSON: a parse error, and the server goes on.
        c.send_raw(b"Content-Length: 5\r\n\r\n{oops")
        self.assertEqual(c.receive()["error"]["code"], -32700)
        reply = c.request("workspace/nonsense", {})
        self.assertEqual(reply["error"]["code"], -32601)
        reply = c.request("textDocument/hover", {"textDocument": {"uri": URI}})
        self.assertEqual(reply["error"]["code"], -32602)
        # A position past the end of the file is clamped, not a crash.
        reply = c.at("textDocument/hover", {"line": 10_000, "character": 10_000})
        self.assertIn("result", reply)
        # An unknown document has no hover; a binary document is checked, not fatal.
        reply = c.request("textDocument/hover", {"textDocument": {"uri": "file:///none.ode"},
                                                 "position": {"line": 0, "character": 0}})
        self.assertIsNone(reply["result"])
        c.notify("textDocument/didOpen", {"textDocument": {
            "uri": "file:///bin.ode", "languageId": "plastic", "version": 1,
            "text": "\u0000\u00ff\ufffd model \u202e x"}})
        self.assertTrue(c.receive()["params"]["diagnostics"])
        # exit without shutdown: exit code 1, as LSP asks.
        c.notify("exit", None)
        self.assertEqual(c.proc.wait(timeout=10), 1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
