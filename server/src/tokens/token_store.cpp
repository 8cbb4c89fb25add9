#include "tokens/token_store.h"

#include <openssl/rand.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "common/client_error.h"
#include "common/iso8601.h"
#include "common/sha256.h"

namespace shaderwatch {

const char* to_string(TokenScope s) {
  switch (s) {
    case TokenScope::Upload: return "upload";
    case TokenScope::Triage: return "triage";
    case TokenScope::Admin: return "admin";
  }
  return "unknown";
}

std::optional<TokenScope> parse_token_scope(std::string_view text) {
  for (const auto s : kTokenScopes)
    if (text == to_string(s)) return s;
  return std::nullopt;
}

namespace {
// A scope as stored; migration 3's CHECK admits only the known names.
TokenScope stored_scope(const std::string& text) {
  if (const auto s = parse_token_scope(text)) return *s;
  throw std::runtime_error("token scope '" + text + "' in the database is not upload, triage or admin");
}
}  // namespace

std::string TokenStore::create(const std::string& name, TokenScope scope) {
  if (name.empty() || name.size() > 64 ||
      !std::all_of(name.begin(), name.end(), [](unsigned char c) {
        return std::isalnum(c) || c == '.' || c == '_' || c == '-';
      }))
    throw ClientError(400, "token name must be 1-64 characters of [A-Za-z0-9._-]", "name");
  unsigned char raw[32];
  if (RAND_bytes(raw, sizeof raw) != 1) throw std::runtime_error("RAND_bytes failed");
  static const char* hex = "0123456789abcdef";
  std::string token = "swt_";
  for (unsigned char c : raw) {
    token.push_back(hex[c >> 4]);
    token.push_back(hex[c & 15]);
  }
  auto lk = db_.write();
  auto& w = lk.conn();
  auto& ex = w.q("SELECT 1 FROM tokens WHERE name=?");
  ex.bind(1, name);
  if (ex.step()) throw ClientError(409, "a token named '" + name + "' already exists", "name");
  w.q("INSERT INTO tokens(name, hash, created_at, scope) VALUES(?,?,?,?)")
      .bind(1, name).bind(2, sha256_hex(token)).bind(3, now_iso()).bind(4, to_string(scope)).run();
  return token;
}

std::vector<TokenInfo> TokenStore::list() {
  std::vector<TokenInfo> out;
  auto c = db_.reader();
  auto& st = c->q("SELECT name, created_at, revoked_at, scope FROM tokens ORDER BY name");
  while (st.step()) {
    TokenInfo t{st.text(0), st.text(1), std::nullopt, stored_scope(st.text(3))};
    if (!st.null(2)) t.revoked_at = st.text(2);
    out.push_back(std::move(t));
  }
  return out;
}

bool TokenStore::revoke(const std::string& name) {
  auto lk = db_.write();
  auto& w = lk.conn();
  auto& st = w.q("UPDATE tokens SET revoked_at=? WHERE name=? AND revoked_at IS NULL");
  st.bind(1, now_iso()).bind(2, name).run();
  return st.changes() > 0;
}

std::optional<TokenInfo> TokenStore::check(std::string_view token) {
  if (token.empty() || token.size() > 256) return std::nullopt;
  const std::string h = sha256_hex(token);
  auto c = db_.reader();
  auto& st = c->q("SELECT name, created_at, scope FROM tokens WHERE hash=? AND revoked_at IS NULL");
  st.bind(1, h);
  if (!st.step()) return std::nullopt;
  return TokenInfo{st.text(0), st.text(1), std::nullopt, stored_scope(st.text(2))};
}

// ---------------------------------------------------------------- ingest


}  // namespace shaderwatch
