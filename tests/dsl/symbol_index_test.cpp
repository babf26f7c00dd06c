// The symbol index a check fills for editors (dsl/symbols.h): every
// declaration with what the check proved, every use resolved to its
// declaration — through lets, fn arguments, layer members and state
// reads — and all of it also when the check fails elsewhere.
#include "dsl/frontend.h"

#include <catch2/catch.hpp>

using namespace plastic;

namespace {

const char* const kModel = R"(model hebb
dim d_in = 3, heads = 2, d_head = 4
dim d_model = heads * d_head

input x : path[d_in] cubic
input y : target[1]

param Wk  : [heads, d_head, d_in] init glorot_uniform
param out : linear[d_model, 1]

state W : [heads, d_head, d_head] = 0

fn key(u) = softmax(Wk @ u)

flow W' =
  let u = x(t)
  let k = key(u)
  outer(k, k)

output logit = out(reshape(W(T), [heads * d_head * d_head])[0:8])
loss mse(logit, y)

solve rk4 step 0.5
gradient direct
)";

struct Indexed {
  dsl::SourceFilePtr file;
  dsl::DiagnosticEngine diag;
  dsl::SymbolIndex index;
  bool ok = false;

  explicit Indexed(std::string text) {
    file = std::make_shared<dsl::SourceFile>("hebb.ode", std::move(text));
    dsl::CheckOptions options;
    options.symbols = &index;
    ok = dsl::check_source_file(file, options, diag).model != nullptr;
  }
  /// The symbol named at the `nth` occurrence of `needle` (+ `inner` bytes).
  const dsl::Symbol* at(const std::string& needle, int nth = 0, uint32_t inner = 0) const {
    size_t pos = std::string::npos;
    for (int i = 0; i <= nth; ++i)
      pos = file->text().find(needle, pos == std::string::npos ? 0 : pos + 1);
    REQUIRE(pos != std::string::npos);
    const int id = index.at(file.get(), static_cast<uint32_t>(pos) + inner);
    return id < 0 ? nullptr : &index.symbols()[static_cast<size_t>(id)];
  }
  uint32_t line_of(const dsl::Symbol& s) const { return file->line_col(s.decl.begin).line; }
};

} // namespace

TEST_CASE("the symbol index resolves every kind of name with its checked shape", "[dsl][symbols]") {
  Indexed m(kModel);
  REQUIRE(m.ok);
  const dsl::Symbol* wk = m.at("Wk @ u");
  REQUIRE(wk);
  CHECK(wk->kind == dsl::SymbolKind::Param);
  CHECK(wk->declared == "[heads, d_head, d_in]");
  CHECK(wk->type == "[2,4,3]");
  CHECK(m.line_of(*wk) == 8);

  const dsl::Symbol* d_model = m.at("d_model, 1");
  REQUIRE(d_model);
  CHECK(d_model->kind == dsl::SymbolKind::Dim);
  CHECK(d_model->declared == "heads * d_head");
  CHECK(d_model->type == "8");

  // A let, a fn's argument and the fn, each at its use.
  const dsl::Symbol* k = m.at("k, k)");
  REQUIRE(k);
  CHECK(k->kind == dsl::SymbolKind::Let);
  CHECK(k->type == "[2,4]");
  CHECK(m.line_of(*k) == 17);
  const dsl::Symbol* arg = m.at("@ u)", 0, 2);
  REQUIRE(arg);
  CHECK(arg->kind == dsl::SymbolKind::Argument);
  CHECK(arg->type == "[3]");
  const dsl::Symbol* key = m.at("key(u)", 1);
  REQUIRE(key);
  CHECK(key->kind == dsl::SymbolKind::Fn);
  CHECK(key->type == "(u)");

  // A state read at T, its flow's name, a path read at t, a layer instance.
  const dsl::Symbol* w = m.at("W(T)");
  REQUIRE(w);
  CHECK(w->kind == dsl::SymbolKind::State);
  CHECK(m.at("W' =") == w);
  const dsl::Symbol* x = m.at("x(t)");
  REQUIRE(x);
  CHECK(x->type == "path[3] cubic");
  const dsl::Symbol* out = m.at("out(reshape");
  REQUIRE(out);
  CHECK(out->kind == dsl::SymbolKind::Layer);
  CHECK(out->declared == "linear[d_model, 1]");

  // Every use of `heads` is recorded once: in dims, shapes and expressions.
  int heads_uses = 0;
  for (const dsl::SymbolUse& u : m.index.uses())
    heads_uses += u.symbol >= 0 && m.index.symbols()[static_cast<size_t>(u.symbol)].name == "heads";
  CHECK(heads_uses == 4);
  // A keyword or a comment names nothing.
  CHECK(m.at("model hebb") == nullptr);
}

TEST_CASE("the symbol index keeps what it knows when the check fails", "[dsl][symbols]") {
  std::string text = kModel;
  text.replace(text.find("outer(k, k)"), 11, "outer(k, kk)");
  Indexed m(text);
  REQUIRE_FALSE(m.ok);
  const dsl::Symbol* wk = m.at("Wk  :");
  REQUIRE(wk);
  CHECK(wk->type == "[2,4,3]");
  const dsl::Symbol* k = m.at("outer(k", 0, 6);
  REQUIRE(k);
  CHECK(k->kind == dsl::SymbolKind::Let);
  CHECK(k->type == "[2,4]");
  CHECK(m.at("kk)") == nullptr);
}
